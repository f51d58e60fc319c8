"""Run by tests/system/test_generated.py in a fresh process, so that the code a module runs on import is seen too: builds
every component's public cases, the steps' and one component's whole part (its mistakes' evidence), tracing
which code runs. Prints {"kit": [kit modules that ran], "units": {unit: {"references": [...], "cases": [...]}}},
a unit's references and cases modules being those whose functions ran while it built."""

import importlib
import inspect
import json
import os
import sys
import tempfile
import threading
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
EVIDENCE = "layernorm"  # the mistakes' evidence, trained gradients included, is built for this component's cases
ran, functions = set(), set()


def trace(frame, event, arg):
    code = frame.f_code
    ran.add(code.co_filename)
    if code.co_flags & inspect.CO_OPTIMIZED:  # a function's frame, not a module's or a class body's
        functions.add(code.co_filename)


def module(filename):
    path = Path(filename).with_suffix("")
    parts = path.relative_to(KIT).parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def of_unit():
    kit = [module(f) for f in functions if f.startswith(str(KIT / "autograder"))]
    return {
        # The reference is loaded under its file's name, relative, as a submission is.
        "references": sorted(Path(f).stem for f in functions if f.endswith(".py") and not os.path.isabs(f)),
        "cases": sorted(
            name
            for name in kit
            if name.startswith(("autograder.engine.authoring.cases.", "autograder.engine.authoring.steps"))
        ),
    }


def main():
    sys.settrace(trace)
    threading.settrace(trace)
    from autograder.engine.authoring import case_files
    from autograder.engine.authoring.builder import Builder
    from autograder.engine.contract import spec

    units = {}
    with tempfile.TemporaryDirectory() as tmp:
        for component in spec.COMPONENTS:
            functions.clear()
            builder = Builder(component.id, case_files.reference(), public=True)
            importlib.import_module(f"autograder.engine.authoring.cases.{component.id}").build(builder)
            units[component.id] = of_unit()
        functions.clear()
        case_files.build_steps(Path(tmp))
        units["steps"] = of_unit()
        functions.clear()
        case_files.build(Path(tmp), EVIDENCE, public=True)
        whole = of_unit()
        units[EVIDENCE] = {key: sorted({*units[EVIDENCE][key], *whole[key]}) for key in whole}
    sys.settrace(None)
    kit = sorted({module(f) for f in ran if f.startswith(str(KIT / "autograder"))})
    print(json.dumps({"kit": kit, "units": units}))


if __name__ == "__main__":
    main()
