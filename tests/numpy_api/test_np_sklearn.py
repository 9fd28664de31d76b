"""scikit-learn estimators fitted and used on cygrad tensors through array-API dispatch.

scikit-learn finds the namespace with ``x.__array_namespace__()``. Its ``check_array``
(behind ``predict``/``transform``/``score``) reads ``X.dtype.kind`` as NumPy's
one-letter category, which cygrad dtypes carry. SciPy reads ``SCIPY_ARRAY_API`` at
import, so each check runs in a fresh process with it set; the reference is the same
estimator fitted on the NumPy arrays.
"""
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = textwrap.dedent("""
    import numpy as np, sklearn, cygrad, cygrad.numpy as cnp
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    y[:6] = 1 - y[:6]           # a few errors, so score() is not trivially 1.0
    Xt = rng.standard_normal((25, 5))
""")

PCA_SCRIPT = PRELUDE + textwrap.dedent("""
    ref = PCA(n_components=2, svd_solver="full").fit(X)
    with sklearn.config_context(array_api_dispatch=True):
        pca = PCA(n_components=2, svd_solver="full").fit(cnp.asarray(X))
        proj = pca.transform(cnp.asarray(Xt))
        back = pca.inverse_transform(proj)
        score = pca.score(cnp.asarray(Xt))
    assert isinstance(pca.components_, cygrad.Tensor), type(pca.components_)
    assert isinstance(proj, cygrad.Tensor) and isinstance(back, cygrad.Tensor)
    np.testing.assert_allclose(np.abs(pca.components_.numpy()), np.abs(ref.components_), atol=1e-10)
    np.testing.assert_allclose(pca.explained_variance_.numpy(), ref.explained_variance_, rtol=1e-10)
    # components are defined up to sign: compare through the sign of each component
    signs = np.sign(np.sum(pca.components_.numpy() * ref.components_, axis=1))
    np.testing.assert_allclose(proj.numpy() * signs, ref.transform(Xt), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(back.numpy(), ref.inverse_transform(ref.transform(Xt)), atol=1e-10)
    np.testing.assert_allclose(float(score), ref.score(Xt), rtol=1e-10)
    print("ok")
""")

LDA_SCRIPT = PRELUDE + textwrap.dedent("""
    ref = LinearDiscriminantAnalysis().fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        lda = LinearDiscriminantAnalysis().fit(cnp.asarray(X), cnp.asarray(y))
        pred = lda.predict(cnp.asarray(Xt))
        proba = lda.predict_proba(cnp.asarray(Xt))
        decision = lda.decision_function(cnp.asarray(Xt))
        proj = lda.transform(cnp.asarray(Xt))
        score = lda.score(cnp.asarray(X), cnp.asarray(y))
    assert isinstance(lda.coef_, cygrad.Tensor), type(lda.coef_)
    assert isinstance(pred, cygrad.Tensor) and pred.dtype == cygrad.int64, pred
    np.testing.assert_allclose(lda.coef_.numpy(), ref.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(pred.numpy(), ref.predict(Xt))
    np.testing.assert_allclose(proba.numpy(), ref.predict_proba(Xt), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(decision.numpy(), ref.decision_function(Xt), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(proj.numpy(), ref.transform(Xt), rtol=1e-8, atol=1e-10)
    assert score == ref.score(X, y) < 1.0, (score, ref.score(X, y))
    print("ok")
""")


def _run(script):
    pytest.importorskip("sklearn", reason="scikit-learn is not installed")
    pytest.importorskip("array_api_compat", reason="sklearn's array-API dispatch needs array-api-compat")
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


def test_pca_fit_transform_score_on_cygrad_tensors():
    _run(PCA_SCRIPT)


def test_lda_fit_predict_score_on_cygrad_tensors():
    _run(LDA_SCRIPT)


def test_dtype_kind_is_numpys_letter():
    import numpy as np
    import cygrad
    for dt in cygrad._core.dtype.ALL_DTYPES:
        expected = "f" if dt.name == "bfloat16" else np.dtype(dt.name).kind   # ml_dtypes says 'V'
        assert dt.kind == expected, (dt, dt.kind)
    # the predicates array-API consumers build from it
    assert cygrad.float32.kind in "fc" and cygrad.int64.kind not in "fc"
