"""The code that runs beside student code, inside the jail: zygote, server, tripwire, runtime, binding,
scrutiny (with scan and names), train_mode. Imports contract/ only, never the judge: what it returns is data that
the judge checks."""
