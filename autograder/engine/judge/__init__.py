"""The trusted side: supervises the jailed child (sandbox, jail), runs the hidden suites (grade, session,
suites/, fixtures/), decides every score (checks, tolerances, diagnosis). Imports contract/, and child/ only
to run the kit's own reference in its own process."""
