"""cygrad's operators, one module per family. Each op is a public function that is
also attached to ``cygrad.Tensor`` as a method."""
