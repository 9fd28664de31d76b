"""scikit-learn estimators fitted on cygrad tensors through array-API dispatch.

scikit-learn finds the namespace with ``x.__array_namespace__()``; until the core
defines that method on Tensor, the child process sets it (one line, the same the
core will have). SciPy reads ``SCIPY_ARRAY_API`` at import, so the check runs in a
fresh process with it set. Only ``fit`` is checked: ``predict``/``transform`` go
through sklearn's ``check_array``, which reads ``X.dtype.kind`` as NumPy's one-letter
string, and cygrad's ``dtype.kind`` is an int (a core change, reported).
"""
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import numpy as np, sklearn, cygrad, cygrad.numpy as cnp
    if not hasattr(cygrad.Tensor, "__array_namespace__"):
        cygrad.Tensor.__array_namespace__ = lambda self, api_version=None: cnp
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    ref_pca = PCA(n_components=2, svd_solver="full").fit(X)
    ref_lda = LinearDiscriminantAnalysis().fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        pca = PCA(n_components=2, svd_solver="full").fit(cnp.asarray(X))
        lda = LinearDiscriminantAnalysis().fit(cnp.asarray(X), cnp.asarray(y))
    assert isinstance(pca.components_, cygrad.Tensor), type(pca.components_)
    assert isinstance(lda.coef_, cygrad.Tensor), type(lda.coef_)
    np.testing.assert_allclose(np.abs(pca.components_.numpy()), np.abs(ref_pca.components_), atol=1e-10)
    np.testing.assert_allclose(pca.explained_variance_.numpy(), ref_pca.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(lda.coef_.numpy(), ref_lda.coef_, rtol=1e-8, atol=1e-10)
    print("ok")
""")


def test_pca_and_lda_fit_on_cygrad_tensors():
    pytest.importorskip("sklearn", reason="scikit-learn is not installed")
    pytest.importorskip("array_api_compat", reason="sklearn's array-API dispatch needs array-api-compat")
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
