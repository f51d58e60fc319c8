"""What of the generated parts needs a process of its own: the course's and the quizzes' notebooks, whose release
nbgrader's generate_assignment makes; a build traced; the kit copied and its stamps computed there; a part built
on a pool. (Every other generated part: tests/unit/test_generated.py.)"""

import ast
import concurrent.futures
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.helpers import RELEASED_PARTS

from autograder import generated
from autograder.engine.authoring import inputs, mistakes
from autograder.engine.contract import spec

SUPPORT = Path(__file__).parent.parent / "support"


@pytest.mark.parametrize("part", RELEASED_PARTS)
def test_generated_files_match_the_reference(part):
    assert generated.drift([part]) == [], f"run: python -m autograder generate --part {part}"


def test_the_kit_code_that_runs_in_a_build_is_declared_by_the_stamps():
    """A build traced in a fresh process: every kit module that runs is in inputs.COMPUTES or one unit's
    COMPUTES_OF, is a component's own cases module or catalog, or says in COMPUTES_NOTHING why none of its values
    come from it; COMPUTES names
    nothing that does not run. Each unit's functions of the reference and of cases modules are its stamp's."""
    run = subprocess.run([sys.executable, SUPPORT / "trace_build.py"], capture_output=True, text=True, check=True)
    traced = json.loads(run.stdout)
    # Every component's catalog is imported with the catalog, and hashed as data for its own unit alone.
    own = {f"autograder.engine.authoring.mistakes.{m.component}" for m in mistakes.CATALOG}
    own |= {name for unit in traced["units"] for name in inputs.cases_files(unit)}
    # A unit's own computing modules (COMPUTES_OF) are imported by the code of COMPUTES that calls them.
    one_units = {name for names in inputs.COMPUTES_OF.values() for name in names}
    undeclared = set(traced["kit"]) - set(inputs.COMPUTES) - set(inputs.COMPUTES_NOTHING) - own - one_units
    no_code = ast.dump(ast.parse(""))
    assert sorted(m for m in undeclared if inputs.code(inputs.module_path(m)) != no_code) == []
    assert sorted(set(inputs.COMPUTES) - set(traced["kit"])) == []
    for unit, ran in traced["units"].items():
        assert set(ran["references"]) <= set(inputs.references(unit)), unit
        assert ran["cases"] == sorted(inputs.cases_files(unit)), unit


def _kit_copy(tmp_path):
    """The kit's code, references and pins, copied where no path is the kit's own."""
    kit = tmp_path / "kit"
    shutil.copytree(
        spec.KIT_ROOT / "autograder",
        kit / "autograder",
        ignore=shutil.ignore_patterns("*.npz", "*.json", "*.txt", "__pycache__"),
    )
    shutil.copytree(spec.SOLUTIONS, kit / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(spec.KIT_ROOT / "requirements.txt", kit)
    return kit


def _inputs(kit=None):
    """{built part: the hash of its inputs}, of the kit, or of a copy of it (in a process of its own)."""
    if kit is None:
        return {part: inputs.digest(generated.unit(part)) for part in generated.STAMPED}
    program = (
        "import json; from autograder import generated; from autograder.engine.authoring import inputs; "
        "assert generated.__file__.startswith('" + str(kit) + "'); "
        "print(json.dumps({p: inputs.digest(generated.unit(p)) for p in generated.STAMPED}))"
    )
    env = dict(os.environ, PYTHONPATH=str(kit))
    return json.loads(
        subprocess.run(
            [sys.executable, "-c", program], cwd=kit, env=env, capture_output=True, text=True, check=True
        ).stdout
    )


def _edit(path, old, new):
    text = path.read_text()
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new))


def _reword_a_hint(kit):
    hint = next(iter(next(iter(_hints().values())).values()))
    _edit(kit / "autograder/engine/authoring/failure_hints.py", hint[:40], hint[:40].upper())


def _hints():
    from autograder.engine.authoring.failure_hints import TOPICS

    return TOPICS


def _reword_a_likely_mistake(kit):
    says = mistakes.BY_ID["layernorm/eps-outside-the-square-root"].says
    _edit(kit / "autograder/engine/authoring/mistakes/layernorm.py", says, "eps belongs inside the square root.")


def _reword_a_hint_of_the_reference(kit):
    (hint,) = [line for line in (kit / "solutions/layernorm.py").read_text().splitlines() if "# Hint 1:" in line][:1]
    _edit(kit / "solutions/layernorm.py", hint, hint + " Mind the dtype.")


def _reword_a_step(kit):
    """Its title, what the notebook says of it and its hint: none of its cases' values."""
    from autograder.engine.authoring import steps

    step = steps.BY_NAME["attention_scores"]
    path = kit / "autograder/engine/authoring/steps/attention.py"
    for text in (step.title, step.says[:40], step.hint[:40]):
        _edit(path, f'"{text}', f'"{text.upper()}')


def _move_a_module_that_computes_values(kit):
    """tolerances.py to the contract's folder, and every import of it, its declaration in COMPUTES_NOTHING
    included."""
    (kit / "autograder/engine/judge/tolerances.py").rename(kit / "autograder/engine/contract/tolerances.py")
    for path in (kit / "autograder").rglob("*.py"):
        text = path.read_text()
        moved = text.replace("autograder.engine.judge.tolerances", "autograder.engine.contract.tolerances")
        moved = re.sub(
            r"from autograder\.engine\.judge import tolerances\b",
            "from autograder.engine.contract import tolerances",
            moved,
        )
        if moved != text:
            path.write_text(moved)


@pytest.mark.parametrize(
    "change",
    [
        _reword_a_hint,
        _reword_a_likely_mistake,
        _reword_a_hint_of_the_reference,
        _reword_a_step,
        _move_a_module_that_computes_values,
    ],
)
def test_a_sentence_reworded_or_a_module_moved_leaves_every_stamp_current(tmp_path, change):
    kit = _kit_copy(tmp_path)
    change(kit)
    assert _inputs(kit) == _inputs()


def test_a_change_to_the_attention_reference_stales_the_parts_built_on_it_and_no_other(tmp_path):
    kit = _kit_copy(tmp_path)
    _edit(kit / "solutions/attention.py", "return weights @ value,", "return weights @ value + 0,")
    before, after = _inputs(), _inputs(kit)
    on_attention = {"attention", *(i for i in spec.BY_ID if "attention" in spec.dependencies(i))}
    # embeddings' cases map Hugging Face's weights by the reference encoder's names, and it uses attention.
    on_attention |= {"embeddings"}
    # training's cases take one step of the reference's Seq2SeqTransformer, which is built on attention.
    on_attention |= {"training"}
    expected = {part for part in generated.STAMPED if generated.unit(part) in on_attention | {generated.STEPS}}
    assert {part for part in before if before[part] != after[part]} == expected
    assert {"fixtures:masking", "fixtures:layernorm", "fixtures:feedforward"}.isdisjoint(expected)


def test_a_new_step_stales_the_steps_alone(tmp_path):
    """A helper that only the notebooks call, added to a reference, and its entry: no component's value runs it."""
    kit = _kit_copy(tmp_path)
    with (kit / "solutions/attention.py").open("a") as reference:
        reference.write("\n\ndef scores_scale(query):\n    return 1 / math.sqrt(query.size(-1))\n")
    path = kit / "autograder/engine/authoring/steps/attention.py"
    new = '    Step("scores_scale", "scale", "", hint="", wrong=None, cases=_scores),\n'
    _edit(path, 'STEPS = of(\n    "attention",\n', 'STEPS = of(\n    "attention",\n' + new)
    before, after = _inputs(), _inputs(kit)
    assert {part for part in before if before[part] != after[part]} == {generated.STEPS}


def test_a_change_to_one_catalog_stales_its_component_alone(tmp_path):
    kit = _kit_copy(tmp_path)
    _edit(kit / "autograder/engine/authoring/mistakes/layernorm.py", '"var + 1e-12"', '"var + 1e-11"')
    before, after = _inputs(), _inputs(kit)
    assert {part for part in before if before[part] != after[part]} == {"fixtures:layernorm", "public:layernorm"}


def test_a_tolerance_of_one_component_stales_its_parts_alone(tmp_path):
    """The encoder's float32 tolerance made tighter, as OVERRIDES allows: only its own evidence is sorted by it."""
    from autograder.engine.judge.tolerances import tolerance

    kit = _kit_copy(tmp_path)
    now = tolerance("float32", "encoder")
    with (kit / "autograder/engine/judge/tolerances.py").open("a") as module:
        module.write(f'\nOVERRIDES["encoder", "float32"] = Tolerance(rtol={now.rtol / 2!r}, atol={now.atol / 2!r})\n')
    before, after = _inputs(), _inputs(kit)
    assert {part for part in before if before[part] != after[part]} == {"fixtures:encoder", "public:encoder"}


def test_a_part_built_in_a_pool_is_the_part_built_here(tmp_path):
    """generate builds parts on a pool of spawned processes, or here when one is asked for: the same files."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    generated.build("public:masking", here)
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(generated.build, "public:masking", there).result()
    assert sorted(p.name for p in here.iterdir()) == sorted(p.name for p in there.iterdir())
    for path in here.iterdir():
        if path.suffix == ".npz":
            with np.load(path) as x, np.load(there / path.name) as y:
                assert sorted(x.files) == sorted(y.files)
                assert all(np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f") for k in x.files)
        else:
            assert path.read_bytes() == (there / path.name).read_bytes()
