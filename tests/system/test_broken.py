"""A broken submission is a normal event: it gets a score and a message, never a grader traceback."""

import os
import re
import subprocess
import sys
import time

import pytest
from support.helpers import TIME_LIMIT, full_marks_except, line_of, scores, submission
from support.hint_evidence import reasons_said

from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault
from autograder.engine.judge import watchdog
from autograder.engine.judge.grade import grade
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.limits import Limits


def graded(tmp_path, edits=(), files=None, drop=(), **kwargs):
    return scores(submission(tmp_path / "submission", edits, files, drop), **kwargs)


def test_syntax_error_costs_only_that_file(tmp_path, sandbox):
    results, report = graded(
        tmp_path,
        [
            (
                "multihead",
                "def forward(self, hidden_states, mask=None, key_value_states=None):",
                "def forward(self, hidden_states, mask=None, key_value_states=None)",
            )
        ],
        sandbox=sandbox,
    )
    assert results["multihead"].score == 0
    assert "not found in your submission: MultiHeadAttention" in results["multihead"].feedback()
    line = line_of("multihead", "def forward(self, hidden_states, mask=None, key_value_states=None):")
    assert any(f"multihead.py: syntax error on line {line}" in note for note in report.notes)
    assert full_marks_except(results, "multihead") == []


def test_missing_file_names_what_is_missing(tmp_path, sandbox):
    results, _ = graded(tmp_path, drop=("decoder",), sandbox=sandbox)
    assert results["decoder"].score == 0
    assert "not found in your submission: TransformerDecoderLayer, TransformerDecoder" in results["decoder"].feedback()
    assert full_marks_except(results, "decoder") == []


def test_infinite_loop_times_out_one_component(tmp_path, sandbox):
    # The loop spends all of its limit: 2 s, twice what every other component needs.
    results, _ = graded(
        tmp_path,
        [("layernorm", "mean = x.mean(dim=-1, keepdim=True)  # (..., 1)", "while True:\n            pass")],
        time_limit=2,
        sandbox=sandbox,
    )
    assert results["layernorm"].score == 0
    assert "time limit of 2 s" in results["layernorm"].feedback()
    assert "zero.time" in reasons_said(results["layernorm"].feedback())
    assert full_marks_except(results, "layernorm") == []


# masking that never returns from its first call.
LOOP = ("return torch.ones(size, size, dtype=torch.bool, device=device).tril()", "while True:\n        pass")


def test_a_shared_sandbox_grades_under_each_gradings_own_limits(tmp_path, sandbox):
    """One zygote serves gradings under other limits (the loop above, under 2 s): a grading's limits are its own, the
    sandbox is back under its own once it is done, and a jailed sandbox never grades unjailed."""
    loop = submission(tmp_path / "loop", [("masking", *LOOP)])
    (looped,) = grade(loop, components=["masking"], sandbox=sandbox, limits=Limits(time=0.5)).components
    assert looped.score == 0 and "time limit of 0.5 s" in looped.feedback(), looped.feedback()
    assert sandbox.limits == sandbox.own_limits
    path = submission(tmp_path / "submission")
    assert grade(path, components=["masking"], sandbox=sandbox).score == 5
    with pytest.raises(KitFault, match="started in the jail, and cannot grade without it"):
        grade(path, components=["masking"], sandbox=sandbox, limits=Limits(jail=False))
    assert sandbox.limits == sandbox.own_limits


# attention that never returns from its first call.
ATTENTION_SPINS = (
    "    ### BEGIN SOLUTION\n    scores = query @ key",
    "    ### BEGIN SOLUTION\n    while True:\n        pass\n    scores = query @ key",
)


def test_a_submission_that_used_up_its_time_scores_zero_in_the_parts_left(tmp_path, sandbox):
    """The parts share the submission's time: a part that spins spends what the parts before it left, and the
    next is never started. An honest first part takes a small share of the total however loaded the machine (a
    0.01 s total, once spent by a busy machine's loading alone, failed the honest part too)."""
    report = grade(
        submission(tmp_path / "submission", [("attention", *ATTENTION_SPINS)]),
        limits=Limits(time=TIME_LIMIT, total=2),
        components=["masking", "attention", "layernorm"],
        sandbox=sandbox,
    )
    masking, attention, layernorm = (
        next(c for c in report.components if c.id == i) for i in ("masking", "attention", "layernorm")
    )
    assert masking.score == masking.points, report.table()
    assert attention.score == 0 and "zero.time" in reasons_said(attention.feedback()), attention.feedback()
    assert layernorm.score == 0 and reasons_said(layernorm.feedback()) == {"zero.used up"}, layernorm.feedback()


def test_a_busy_machine_costs_an_honest_submission_nothing(tmp_path, sandbox):
    """Time limits count CPU time (issue 37, SPEC): a correct submission graded with a 1 s limit, while processes in
    sessions of their own keep every core busy, scored 50/100 when the limit was wall-clock time."""
    path = submission(tmp_path / "submission")
    # The zygote has imported torch before the hogs start (what the limit counts is the components' time, not the
    # zygote's): the hogs burn every core for as long as they run. One more than the cores keeps every core busy and
    # the grader waiting for one; each hog more only burns CPU the run's other tests need.
    sandbox.parse(path)
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range((os.cpu_count() or 1) + 1)
    ]
    try:
        # The parts that take the most CPU time (each well under its limit on an idle machine), and the least.
        results, report = scores(
            path, time_limit=1, sandbox=sandbox, components=["masking", "encoder", "decoder", "seq2seq"]
        )
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert [r.score for r in results.values()] == [5, 15, 15, 10], report.table()


@pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"), reason="this kernel keeps no run-queue times")
def test_the_time_a_process_waits_for_a_cpu_is_counted_apart(tmp_path):
    """What lets a loaded machine cost nothing: a busy loop sharing its one CPU with a hog waits for it about as long
    as it runs, and that wait (not its own doing) is what run_delay reads. However loaded the machine, the wait
    only grows."""
    cpu = {min(os.sched_getaffinity(0))}
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    loop = subprocess.Popen(
        [sys.executable, "-c", "import time\nwhile time.process_time() < 1.5: pass\ninput()"],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        os.sched_setaffinity(hog.pid, cpu)
        os.sched_setaffinity(loop.pid, cpu)
        while watchdog.cpu_seconds(loop.pid)[1] < 1:  # it stops counting at 1.5 s
            time.sleep(0.05)
        waited = watchdog.run_delay(loop.pid)
    finally:
        for process in (hog, loop):
            process.kill()
            process.wait()
    assert waited > 0.5, f"waited {waited:.2f} s for a CPU it shared with a hog, while running 1 s"


def test_a_sleeping_component_is_stopped_by_the_wall_clock(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "masking",
                "return torch.ones(size, size, dtype=torch.bool, device=device).tril()",
                "import time\n    time.sleep(60)",
            )
        ],
        time_limit=1,
        components=["masking"],
        accept_flagged=True,
        sandbox=sandbox,
    )  # time.sleep is held for review; accepted, it still cannot wait for ever
    assert results["masking"].score == 0
    # The CPU time it used before sleeping is what a loaded machine makes it (0.0 s idle, a few hundredths under load).
    assert re.search(
        r"was stopped while running causal_mask: it slept or waited for 14 s, using [\d.]+ s of its 1 s of CPU time",
        results["masking"].feedback(),
    ), results["masking"].feedback()
    assert "zero.slept" in reasons_said(results["masking"].feedback())


def test_shape_error_is_reported_with_the_line(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "feedforward",
                "self.linear2(F.gelu(self.linear1(x)))",
                "self.linear2(F.gelu(self.linear1(x)).transpose(1, 2))",
            )
        ],
        sandbox=sandbox,
    )
    feedback = results["feedforward"].feedback()
    assert results["feedforward"].score == 0
    assert "RuntimeError" in feedback and "feedforward.py, line" in feedback
    assert full_marks_except(results, "feedforward") == []


def test_exit_at_import_does_not_stop_loading(tmp_path, sandbox):
    files = {"leftover.py": "if True:\n    exit('bye')\n"}
    results, report = graded(tmp_path, files=files, sandbox=sandbox)
    assert report.score == 100
    assert (
        "leftover.py: 1 statement not run, since nothing graded needs it: line 2 uses the builtin exit (outside what "
        "grading runs)" in report.notes
    )
    # Accepted by an instructor, it runs, and stops only its own statement.
    results, report = graded(tmp_path / "accepted", files=files, accept_flagged=True, sandbox=sandbox)
    assert report.score == 100
    assert "while loading your code: SystemExit: bye (leftover.py, line 2: exit('bye'))" in report.notes


def test_exit_in_forward_fails_that_component(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "embeddings",
                "positions = torch.arange(input_ids.size(1), device=input_ids.device)  # (T,)",
                "raise SystemExit(3)",
            )
        ],
        accept_flagged=True,
        sandbox=sandbox,
    )
    assert results["embeddings"].score < results["embeddings"].points
    assert "SystemExit" in results["embeddings"].feedback()
    assert full_marks_except(results, "embeddings") == []


def test_crash_in_forward_scores_zero_with_a_message(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "embeddings",
                "positions = torch.arange(input_ids.size(1), device=input_ids.device)  # (T,)",
                "import os\n        os._exit(3)",
            )
        ],
        accept_flagged=True,
        sandbox=sandbox,
    )
    assert results["embeddings"].score == 0
    assert "the process running your code stopped" in results["embeddings"].feedback()
    assert "zero.crashed" in reasons_said(results["embeddings"].feedback())
    assert full_marks_except(results, "embeddings") == []


@pytest.mark.parametrize(
    "component, old, new, call",
    [
        (
            "layernorm",
            "return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
            "return torch.nn.functional.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps)",
            "layer_norm",
        ),
        (
            "attention",
            "return weights @ value, weights",
            "return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask), weights",
            "scaled_dot_product_attention",
        ),
        (
            "multihead",
            "context = self.dropout(weights) @ v  # (B, H, T, Dh)",
            "context = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)",
            "scaled_dot_product_attention",
        ),
        (
            "feedforward",
            "return self.dropout(self.linear2(F.gelu(self.linear1(x))))",
            "from transformers.activations import ACT2FN\n        return self.dropout(self.linear2(ACT2FN['gelu'](self.linear1(x))))",
            "a transformers module",
        ),
    ],
    ids=["layernorm-torch-layer-norm", "attention-torch-sdpa", "multihead-torch-sdpa", "feedforward-transformers-gelu"],
)
def test_delegating_to_a_library_scores_zero(tmp_path, sandbox, component, old, new, call):
    results, _ = graded(tmp_path, [(component, old, new)], sandbox=sandbox)
    assert results[component].score == 0
    assert call in results[component].feedback() and "scores 0" in results[component].feedback()
    said = "delegation.any.transformers" if "transformers" in call else f"delegation.{component}.kernel"
    assert said in reasons_said(results[component].feedback())
    assert not results[component].flags and "HELD" not in results[component].feedback()  # delegation is not tampering
    assert full_marks_except(results, component) == []


@pytest.mark.parametrize(
    "component, edits, call",
    [
        # Names the old list of kernels missed (issue 26, class 2): torch's flex attention ...
        (
            "attention",
            [
                (
                    "attention",
                    "return weights @ value, weights",
                    "flex.flex_attention(*[torch.zeros(1, 1, 16, 16)] * 3)\n    return weights @ value, weights",
                ),
                ("attention", "import torch\n", "import torch\nimport torch.nn.attention.flex_attention as flex\n"),
            ],
            "flex_attention",
        ),
        # ... and a module reached by an assignment rather than an import.
        (
            "multihead",
            [
                (
                    "multihead",
                    "context = self.dropout(weights) @ v  # (B, H, T, Dh)",
                    "context = functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)",
                ),
                ("multihead", "from torch import nn\n", "from torch import nn\nfunctional = nn.functional\n"),
            ],
            "scaled_dot_product_attention",
        ),
    ],
    ids=["flex-attention", "functional-by-assignment"],
)
def test_delegation_is_seen_however_it_is_spelled_and_named_with_its_line(tmp_path, sandbox, component, edits, call):
    results, _ = graded(tmp_path, edits, components=[component], sandbox=sandbox)
    feedback = results[component].feedback()
    assert results[component].score == 0 and call in feedback and f"named at {component}.py, line" in feedback
    assert {f"delegation.{component}.kernel", "delegation.any.named at"} <= reasons_said(feedback)
    assert not results[component].flags and "HELD" not in feedback


def test_a_kernel_in_a_branch_that_never_runs_keeps_the_score_with_a_warning(tmp_path, sandbox):
    """nanoGPT's `if self.flash: F.scaled_dot_product_attention(...) else: <by hand>`, with the flag off."""
    results, report = graded(
        tmp_path,
        [
            (
                "multihead",
                "context = self.dropout(weights) @ v  # (B, H, T, Dh)",
                "if self.flash:\n            context = nn.functional.scaled_dot_product_attention(q, k, v)\n"
                "        else:\n            context = self.dropout(weights) @ v",
            ),
            (
                "multihead",
                "self.dropout = nn.Dropout(config.attention_probs_dropout_prob)",
                "self.dropout = nn.Dropout(config.attention_probs_dropout_prob)\n        self.flash = False",
            ),
        ],
        components=["multihead"],
        sandbox=sandbox,
    )
    multihead = results["multihead"]
    assert multihead.score == multihead.points and not multihead.flags and "HELD" not in report.table()
    # The kernel stands a line below the `if` that replaced the original line, and __init__ gained a line above it.
    line = line_of("multihead", "context = self.dropout(weights) @ v  # (B, H, T, Dh)") + 2
    assert f"warning: multihead.py, line {line}: names torch.nn.functional.scaled_dot_product_attention" in (
        multihead.feedback()
    )
    assert "never ran while this part was graded" in report.table()
    assert "delegation.any.never ran" in reasons_said(multihead.feedback())


def test_code_the_check_cannot_read_never_runs(tmp_path, sandbox):
    """Nested past the parser's depth: once an earlier file has raised the recursion limit, the child could
    parse what the check could not. Graded as if an instructor had accepted the flag on the earlier file."""
    deep = "x = " + "-" * 3000 + "1\n"
    results, report = graded(
        tmp_path,
        files={
            "aa.py": "import sys\nsys.setrecursionlimit(100000)\n",
            "deep.py": "import masking\nmasking.causal_mask = None\n" + deep,
        },
        components=["masking"],
        accept_flagged=True,
        sandbox=sandbox,
    )
    assert results["masking"].score == results["masking"].points
    assert any(
        "deep.py was not run: the grader's check cannot read it (RecursionError)" in note for note in report.notes
    )


def test_reference_cannot_be_imported_from_a_submission(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "layernorm",
                "mean = x.mean(dim=-1, keepdim=True)  # (..., 1)",
                "import importlib\n        return importlib.import_module('solutions.layernorm').LayerNorm.forward(self, x)",
            )
        ],
        accept_flagged=True,
        sandbox=sandbox,
    )  # importlib is held for review; accepted, the import still fails
    assert results["layernorm"].score == 0
    assert "ImportError: importing solutions is not allowed in a submission" in results["layernorm"].feedback()


def test_modifying_an_input_in_place_costs_that_test(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "layernorm",
                "return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
                "x -= mean\n        return self.weight * x / torch.sqrt(var + self.eps) + self.bias",
            )
        ],
        sandbox=sandbox,
    )
    layernorm = results["layernorm"]
    assert [t.name for t in layernorm.tests if not t.passed] == ["test_layernorm_leaves_inputs_unchanged[3d]"]
    assert "changed in place" in layernorm.feedback()


def test_memory_hog_fails_with_the_limit_named(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "feedforward",
                "return self.dropout(self.linear2(F.gelu(self.linear1(x))))",
                "torch.ones(6 << 30, dtype=torch.uint8)\n        return self.dropout(self.linear2(F.gelu(self.linear1(x))))",
            ),
            ("feedforward", "from torch import nn", "import torch\nfrom torch import nn"),
        ],
        sandbox=sandbox,
    )
    assert results["feedforward"].score == 0
    assert "out of memory: the limit is 4 GiB" in results["feedforward"].feedback()
    assert full_marks_except(results, "feedforward") == []


def test_wrong_return_types_are_named(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "masking",
                "return torch.ones(size, size, dtype=torch.bool, device=device).tril()",
                "return torch.ones(size, size, device=device).tril().tolist()",
            ),
            (
                "masking",
                "return attention_mask.bool()[:, None, None, :]  # (B, 1, 1, S)",
                "return attention_mask[:, None, None, :]",
            ),
        ],
        components=["masking"],
        sandbox=sandbox,
    )
    feedback = results["masking"].feedback()
    assert "mask should be a tensor, but is a sequence of" in feedback
    assert "has dtype int64, expected torch.bool" in feedback


@pytest.mark.parametrize(
    "name, content, note",
    [
        ("notes.txt", "hello", "is not a notebook (.ipynb), a Python file (.py) or a folder"),
        ("missing.py", None, "does not exist"),
        ("broken.ipynb", "{not json", "is not a readable notebook"),
    ],
)
def test_unreadable_submission_scores_zero_with_a_note(tmp_path, sandbox, name, content, note):
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    results, report = scores(path, components=["masking"], sandbox=sandbox)
    assert report.score == 0
    assert any(note in n for n in report.notes) or note in results["masking"].feedback()
    assert "zero.unreadable" in reasons_said(results["masking"].feedback())


def test_empty_folder_scores_zero(tmp_path, sandbox):
    results, report = scores(tmp_path, components=["masking", spec.INTEGRATION], sandbox=sandbox)
    assert report.score == 0
    assert "holds no notebook (.ipynb) or Python file (.py)" in " ".join(report.notes)


def test_misnamed_submodule_fails_strict_loading(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "multihead",
                "self.output = nn.Linear(config.hidden_size, config.hidden_size)",
                "self.out_proj = nn.Linear(config.hidden_size, config.hidden_size)",
            ),
            ("multihead", "return self.output(context), weights", "return self.out_proj(context), weights"),
        ],
        components=["multihead"],
        sandbox=sandbox,
    )
    feedback = results["multihead"].feedback()
    assert results["multihead"].score == 0
    assert (
        "MultiHeadAttention has no parameter output.bias, output.weight; has parameters SPEC does not name: out_proj.bias, out_proj.weight"
        in feedback
    )


def test_wrong_output_dtype_is_named_before_values(tmp_path, sandbox):
    results, _ = graded(
        tmp_path,
        [
            (
                "layernorm",
                "return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
                "return (self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias).float()",
            )
        ],
        components=["layernorm"],
        sandbox=sandbox,
    )
    layernorm = results["layernorm"]
    assert {t.name.endswith("float64]") for t in layernorm.tests if not t.passed} == {True}
    assert "output has dtype float32, expected float64 (the dtype of the inputs)" in layernorm.feedback()


def test_children_do_not_outlive_a_killed_grader(tmp_path):
    """A grader killed from outside (a platform timeout) leaves no student code running."""
    path = submission(tmp_path / "s", [("masking", *LOOP)])
    script = (
        "import sys, numpy\n"
        "import threading, time\n"
        "from autograder.engine.contract import loader\n"
        "from autograder.engine.judge import sandbox\n"
        "box = sandbox.Sandbox()\n"
        f"child = box.start('masking', box.parse({str(path)!r}))\n"
        "threading.Thread(target=lambda: (time.sleep(0.5), print(box.students()[0], flush=True))).start()\n"
        "child.call('causal_mask', 3)\n"
    )
    judge = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=spec.KIT_ROOT)
    pid = int(judge.stdout.readline())
    time.sleep(1)  # the child is now looping in student code
    os.kill(pid, 0)
    judge.kill()
    judge.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    assert not _alive(pid), "student code kept running after the grader was killed"


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"  # a zombie has already stopped running
    except FileNotFoundError:
        return False


def test_a_float64_only_mistake_shows_the_digits_that_differ_and_its_usual_causes(tmp_path, sandbox):
    path = submission(
        tmp_path / "s",
        [
            (
                "attention",
                "/ math.sqrt(query.size(-1))",
                "/ torch.tensor(math.sqrt(query.size(-1)), dtype=torch.float32)",
            )
        ],
    )
    results, _ = scores(path, components=["attention"], sandbox=sandbox)
    feedback = results["attention"].feedback()
    assert all(test.name.endswith("float64]") for test in results["attention"].tests if not test.passed)
    got, expected = re.search(r"got (\S+), expected (\S+)\.", feedback).groups()
    assert got != expected, "the printed values must show the difference"
    assert HINTS["any"]["float32-only"] in feedback and "Hint: weights = softmax" not in feedback


def test_a_component_held_to_a_tolerance_of_its_own_is_checked_with_it_and_the_others_are_not(monkeypatch):
    """tolerance(dtype, component) is the one door to the table: a component's own entry in OVERRIDES is what
    every check of its outputs uses (a float32 value 3e-5 off passes the table's 5e-5 and fails 1e-6), and the
    other components, and the other dtype, keep the table's."""
    import numpy as np

    from autograder.engine.judge import checks, tolerances

    expected = np.array([1.0, -2.0])
    off = {"$tensor": (expected + 3e-5).astype(np.float32), "dtype": "float32"}
    checks.close(off, expected, "output", "case 1", "float32", component="encoder")
    tight = tolerances.Tolerance(rtol=1e-6, atol=1e-6)
    monkeypatch.setitem(tolerances.OVERRIDES, ("encoder", "float32"), tight)
    with pytest.raises(checks.StudentError, match=re.escape(f"(allowed: {tight})")):
        checks.close(off, expected, "output", "case 1", "float32", component="encoder")
    checks.close(off, expected, "output", "case 1", "float32", component="decoder")
    assert tolerances.tolerance(None, "encoder") == tight  # an output with no float input: float32's
    assert tolerances.tolerance("float64", "encoder") == tolerances.TOLERANCES["float64"]


# Each hint says only what the numbers support (issue 27): where it was wrong, a student was sent the wrong way.
HINT_CASES = {
    # nn.LayerNorm's default eps 1e-5 in place of the config's: near in float32, off in float64. The hint once
    # said "computes in float32" alone; it now names a constant other than the config's, eps among them.
    "a layer norm's default eps": (
        "encoder",
        [
            (
                "encoder",
                "self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                "self.attention_norm = nn.LayerNorm(config.hidden_size)",
            )
        ],
        [HINTS["any"]["float32-only"], "nn.LayerNorm's default is 1e-5"],
        ["Hint: weights"],
    ),
    # log_softmax on the logits: the hint once said "read only the first position", which the code did.
    "a classifier that returns log_softmax": (
        "heads",
        [
            (
                "heads",
                "return self.classifier(self.dropout(pooled))  # (B, num_labels)",
                "return torch.log_softmax(self.classifier(self.dropout(pooled)), dim=-1)",
            )
        ],
        ["no softmax or log_softmax"],
        [HINTS["any"]["float32-only"]],
    ),
    # token types dropped: the hint once named sizes alone. A usual case with token types fails too, so the odd
    # config's hint (sizes, eps, token types) is not said; the usual case's own hint names the token types.
    "token types dropped in the encoder": (
        "encoder",
        [
            (
                "encoder",
                "hidden_states = self.embeddings(input_ids, token_type_ids)  # (B, T, D)",
                "hidden_states = self.embeddings(input_ids)  # (B, T, D)",
            )
        ],
        ["pass token_type_ids on to the embeddings"],
        [HINTS["any"]["float32-only"], HINTS["any"]["config"]],
    ),
    # far off in both dtypes: nothing about float32 precision may be said.
    "scores divided by Dh": (
        "attention",
        [("attention", "/ math.sqrt(query.size(-1))", "/ query.size(-1)")],
        ["Hint: weights = softmax"],
        [HINTS["any"]["float32-only"]],
    ),
}


@pytest.mark.parametrize("case", HINT_CASES)
def test_a_hint_appears_where_the_numbers_support_it_and_nowhere_else(tmp_path, sandbox, case):
    component, edits, said, unsaid = HINT_CASES[case]
    results, _ = graded(tmp_path, edits, components=[component], sandbox=sandbox)
    feedback = results[component].feedback()
    assert results[component].score < results[component].points, feedback
    assert all(text in feedback for text in said), feedback
    assert not any(text in feedback for text in unsaid), feedback
