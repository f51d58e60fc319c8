"""How much of each tolerance the reference uses: the margin a correct implementation has.

Runs the reference through the grader's own path (sandbox, child, the hidden suites' case runner) on
every fixture case, and prints, per component and dtype, the worst |actual - expected| as a share of
what the tolerance allows (1.0 would fail): for eval-mode values, and for train-mode values and the
gradients of one backward pass (the same tolerances). Run it on a GPU machine with --device cuda to check that
the tolerances hold there too.

Usage: python benchmarks/tolerance_headroom.py [--device cuda]
"""

import argparse

import numpy as np

from autograder.engine.contract import loader, spec
from autograder.engine.judge import checks, fixtures
from autograder.engine.judge.sandbox import Sandbox
from autograder.engine.judge.suites.running import run
from autograder.engine.judge.suites.train_checks import run_training
from autograder.engine.judge.tolerances import tolerance


def worst_share(outputs, expected_values, dtype, case):
    """The largest error/allowed ratio over the float values expected_values names."""
    allowed = tolerance(dtype, case.component)
    shares = [0.0]
    for name, expected in expected_values.items():
        if expected.dtype.kind == "f":
            actual = checks.tensor(outputs[name], name, case.id)[0].astype(np.float64)
            shares.append(float((np.abs(actual - expected) / allowed.slack(expected)).max()))
    return max(shares)


def trained_share(child, case, dtype):
    outputs, gradients, _ = run_training(child, case, dtype)
    return worst_share({**outputs, **gradients}, case.trained, dtype, case)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    sandbox = Sandbox(args.device)
    submission = loader.load(spec.SOLUTIONS)
    print(f"{'':<13} {'eval mode':>17}   {'train mode, gradients':>21}")
    print(
        f"{'component':<13} {'float32':>8} {'float64':>8}   {'float32':>10} {'float64':>10}   (worst error / allowed; fails at 1.0)"
    )
    try:
        for component in spec.COMPONENTS:
            child = sandbox.start(component.id, submission)
            worst = {}
            for case in fixtures.cases(component.id):
                for dtype in case.dtypes:
                    key = dtype or "float32"  # tables without a float input are held to float32's tolerance
                    worst[key] = max(
                        worst.get(key, 0.0), worst_share(run(child, case, dtype), case.expected, dtype, case)
                    )
                    if case.trained:
                        worst[f"train {key}"] = max(worst.get(f"train {key}", 0.0), trained_share(child, case, dtype))
            child.close()
            print(
                f"{component.id:<13} {worst.get('float32', 0):8.2g} {worst.get('float64', 0):8.2g}   "
                f"{worst.get('train float32', 0):10.2g} {worst.get('train float64', 0):10.2g}"
            )
    finally:
        sandbox.close()


if __name__ == "__main__":
    main()
