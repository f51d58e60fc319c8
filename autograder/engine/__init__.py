"""The grading engine, laid out by trust: which code runs beside the student, and which judges.

- contract/  what both sides hold: the spec (names, signatures, points), the wire protocol, the submission
             loader. Enters the jail. Imports nothing of the kit outside contract/.
- child/     what runs with student code, inside the jail: the zygote, the child's server, the runtime that
             loads units, the binding of names to the reference (binding), the static check (scrutiny), the
             train-mode stand-ins (train_mode). Enters the jail. Imports contract/ only, and holds no grading
             decision: no expected value, tolerance or point is within its reach.
- judge/     trusted, outside the jail: the sandbox that supervises the child, the jail that builds it, the
             grading session and runner, the hidden suites and their fixtures, the checks and their one
             tolerance table, the diagnosis of a mistake, Hugging Face models from a config (hf), the check
             against a real checkpoint. Imports contract/ and, to run the reference in its own process,
             child/.
- authoring/ offline, on the instructor's machine: the fixture builder, the mistake catalog and each
             mistake's evidence. Grading never imports it, and the bundle never ships it. May import all of the above.

tests/unit/test_layout.py holds each folder to these rules, and judge/jail.py mounts contract/ and child/ alone.
Imports nothing else of the kit: course/ and breakout/ sit above it.
"""
