"""The steps towards `layernorm`, in the order the notebook asks them."""

from autograder.engine.authoring.builder import In, randn
from autograder.engine.authoring.steps.step import Step, of


def _statistics(c):
    for case_id, about, shape in (("3d", "x (2, 3, 5)", (2, 3, 5)), ("2d", "x (4, 6)", (4, 6))):
        g = c.generator(case_id)
        inputs = {"x": randn(g, *shape, scale=2.0, shift=1.0)}
        c.add(case_id, about, inputs, [In("x")], outputs=("mean", "variance"))


def _normalise(c):
    for case_id, about, eps in (
        ("eps-0.5", "x (2, 3, 4), eps 0.5", 0.5),
        ("eps-1e-12", "x (2, 3, 4), eps 1e-12", 1e-12),
    ):
        g = c.generator(case_id)
        inputs = {
            "x": randn(g, 2, 3, 4),
            "mean": randn(g, 2, 3, 1),
            "variance": randn(g, 2, 3, 1).abs() + 0.25,
        }
        c.add(case_id, about, inputs, [In("x"), In("mean"), In("variance"), eps])


def _scale_and_shift(c):
    g = c.generator("3d")
    inputs = {"normalised": randn(g, 2, 3, 4), "weight": randn(g, 4, shift=1.0), "bias": randn(g, 4)}
    args = [In("normalised"), In("weight"), In("bias")]
    c.add("3d", "normalised (2, 3, 4), weight and bias (4,)", inputs, args)


STEPS = of(
    "layernorm",
    Step(
        "mean_and_variance",
        "the statistics",
        "The mean and the biased variance over the last dimension, kept as (..., 1) so that they broadcast against x.",
        hint=(
            "both over the last dimension only, each shaped (..., 1); the variance is the BIASED one, the mean of"
            " the squared deviations from the mean (divided by D, not D - 1)."
        ),
        wrong=lambda x: (x.mean(-1, keepdim=True), x.var(-1, keepdim=True)),
        cases=_statistics,
        minutes=5,
        difficulty="easy",
    ),
    Step(
        "normalise",
        "normalise",
        "(x - mean) / sqrt(variance + eps), eps given.",
        hint=(
            "(x - mean) / sqrt(variance + eps): eps is added to the variance, inside the square root, not to the "
            "square root."
        ),
        wrong=lambda x, mean, variance, eps: (x - mean) / (variance.sqrt() + eps),
        cases=_normalise,
        minutes=5,
        difficulty="easy",
    ),
    Step(
        "scale_and_shift",
        "scale and shift",
        "weight · normalised + bias, with weight and bias (D,).",
        hint="weight * normalised + bias, the (D,) weight and bias applied along the last dimension.",
        wrong=lambda normalised, weight, bias: normalised * weight,
        cases=_scale_and_shift,
        minutes=5,
        difficulty="easy",
    ),
)
