"""Helpers of the "one entry path per op" tests (issue 8)."""


def count_forward_calls(monkeypatch, cls):
    """Wrap ``cls.forward`` (for the test's duration) so that every call is recorded;
    returns the list the calls' arguments are appended to."""
    forward = cls.forward
    calls = []

    def counted(ctx, *args):
        calls.append(args)
        return forward(ctx, *args)

    monkeypatch.setattr(cls, "forward", staticmethod(counted))
    return calls
