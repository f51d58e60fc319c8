"""The grading engine: everything that grades a submission, and the hidden cases it grades on.

The judge's side (grade, session, sandbox, jail, checks, tolerances, suites/, fixtures/, diagnosis,
progress) runs the hidden suites against what the child returns; the child's side (zygote, child,
runtime, isolation, loader, scrutiny, protocol, spec, training) is all of the kit that enters the jail;
training (dropout's stand-in, one backward pass) also makes the fixtures' train-mode values. Also here:
hf (Hugging Face models from a config), pretrained (the check against a real checkpoint), the mistake
catalog that diagnosis names (mistakes), and the builders of the fixtures and of each mistake's evidence
on them (fixtures/build.py, fixtures/evidence.py), which run on the instructor's machine only.

Imports nothing else of the kit: course/ and breakout/ sit above it.
"""
