"""Why a component scores 0 (errors.Fatal's reason), and why code may not delegate its subject: every such
sentence a student reads, by key, with format fields for what differs from one submission to the next.

In the contract because the child raises some of them (a delegation, code the tripwire cannot watch) and imports
nothing of the judge's; the judge's own (a timeout, a crash, a limit) sit beside them, so that one table holds them
all, and judge/hints re-exports it beside the hints. The student reads "scores 0: " and the reason (errors.ZERO);
tests/support/hint_evidence.py names the test that holds each to a graded submission, or why none can.
"""

# What ended a component: its child, as the judge handles it (judge/handle.py), the watchdog over its processes
# (judge/watchdog.py), the grading run (judge/session.py) and the tripwire in the child (child/tripwire.py).
ZERO: dict[str, str] = {
    "stopped before": "the process running your code had stopped before {doing}",
    "time": "your code ran past the time limit of {limit:g} s while {doing}",
    "slept": "your code was stopped while {doing}: it slept or waited for {wall:g} s, using {used:.1f} s of its "
    "{limit:g} s of CPU time",
    "crashed": "the process running your code stopped while {doing} (a crash, sys.exit/os._exit, or running out of "
    "memory)",
    "refused reply": "the process running your code sent the grader something it does not accept while {doing} "
    "({error})",
    "not an answer": "the process running your code sent the grader something that is not an answer while {doing}",
    "memory": "your code's processes used {used:.1f} GiB together, more than the limit of {limit:g} GiB",
    "processes": "your code started more than {limit} processes",
    "threads": "your code ran more than {limit} threads and processes at once",
    "unreadable": "the submission could not be read: {error}",
    "held": "held for review, it never ran (see why above)",
    "used up": "your code used up the {total:g} s that one submission may run",
    "tensor subclass": "your code made a subclass of torch.Tensor, which hides torch calls from the grader; compute "
    "with plain tensors",
    "callback": "your code calls {function}, which runs Python code inside a torch call, where the grader cannot "
    "watch what it does",
    "foreign argument": "your code passes a {foreign} to torch's {function}, which would run that object's methods "
    "inside the torch call, where the grader cannot watch them; pass tensors, numbers and lists of them",
}

# A component's code that ran library code of its own subject (the child's tripwire saw it: child/server.py), by
# the component whose subject it is, {call} the kernels it ran; "any" for what every component may not do, and
# what the judge adds from the static check's names (judge/grade.py).
DELEGATION: dict[str, dict[str, str]] = {
    "any": {
        "transformers": "it runs code from a transformers module; every part must be built from torch operations "
        "in your own code (SPEC: any transformers module anywhere scores 0)",
        "named at": " (named at {where})",
        "spread": "it names {kernels}, which this part may not delegate to, and ran code in other threads or "
        "processes, where the grader cannot see whether it ran",
        "never ran": "warning: {kernel}, which this part may not delegate to; it never ran while this part was "
        "graded, so the score stands (it would score 0 if it ran)",
    },
    "attention": {
        "kernel": "it calls torch's own attention ({call}) instead of computing softmax(QKᵀ/sqrt(Dh))V itself",
    },
    "layernorm": {
        "kernel": "it calls torch's own normalisation ({call}) instead of computing mean and variance itself",
    },
    "multihead": {
        "kernel": "it calls torch's own attention ({call}) instead of splitting heads and using "
        "scaled_dot_product_attention",
    },
    "training": {
        "kernel": "it calls torch's own gradient clipping ({call}) instead of computing the gradients' total norm "
        "and scaling them itself",
    },
}
