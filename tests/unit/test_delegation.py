"""What a component may not delegate, decided without a grading: the static check's kernels (child/scrutiny.py, by
the policy's names) and the tripwire's (child/tripwire.py, in-process). Gradings that score a delegation 0 are
tests/system/test_broken.py's."""

from support.helpers import submission

from autograder.engine.contract import spec


def verdict_of(folder, files):
    from autograder.engine.child import scrutiny
    from autograder.engine.contract import loader

    return scrutiny.check(loader.load(submission(folder, files=files)))


CLIPS_WITH_TORCH = "\n\ndef clip_gradient_norm(parameters, max_norm):\n    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)\n"
CAUSAL_MASK_CLIPPING = (
    "\n\ndef causal_mask(size, device=None):\n    torch.nn.utils.clip_grad_norm_([], 1.0)\n"
    "    return torch.ones(size, size, dtype=torch.bool, device=device).tril()\n"
)


def test_torchs_gradient_clipping_is_the_training_components_kernel_alone(tmp_path):
    """The policy lends clip_grad_norm_ (part 10's loop clips with it): named where training needs it, it is training's
    kernel; named by another component's code, it is nothing."""
    verdict = verdict_of(
        tmp_path / "s",
        {
            "training.py": spec.BY_ID["training"].reference.read_text() + CLIPS_WITH_TORCH,
            "masking.py": spec.BY_ID["masking"].reference.read_text() + CAUSAL_MASK_CLIPPING,
        },
    )
    assert verdict.held == {} and list(verdict.kernels) == ["training"]
    assert "clip_grad_norm_, torch's own clipping" in verdict.kernels["training"][0]


def test_the_tripwire_sees_torchs_gradient_clipping_run_under_the_training_components_code():
    """clip_grad_norm_ is Python code of torch's that calls torch's norms: the tripwire finds it on the stack of those
    calls. The reference's own clipping runs the same norms and is not it; another component's tripwire looks for
    nothing there."""
    import torch

    from autograder.engine.authoring import case_files
    from autograder.engine.child.tripwire import Tripwire

    def kernels(component, clip):
        parameter = torch.ones(3, requires_grad=True)
        parameter.grad = torch.full((3,), 2.0)
        tripwire = Tripwire(spec.BY_ID[component].forbidden, {}, spec.BY_ID[component].forbidden_in_python)
        with tripwire:
            clip([parameter], 1.0)
        return set(tripwire.kernels)

    reference = case_files.reference()["clip_gradient_norm"]
    assert kernels("training", torch.nn.utils.clip_grad_norm_) == {"torch's clip_grad_norm_"}
    assert kernels("training", reference) == set()
    assert kernels("attention", torch.nn.utils.clip_grad_norm_) == set()
