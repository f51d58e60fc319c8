"""Offline, on the instructor's machine only: the fixture builder (fixtures), the mistake catalog (mistakes)
and each mistake's evidence on the hidden cases (evidence). May import every other folder of the engine;
nothing imports it at grading time."""
