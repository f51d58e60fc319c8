"""What a submission may use: the allowed world, as data. Everything else is held for an instructor's review.

Read it as a table (docs/THREATS.md, "The policy"). The static check (child/scrutiny.py) holds any code that
reaches for something these tables do not list, and the child runs student code with these builtins alone
(child/allowed.py). A name a rule lets through may still be a kernel that a component may not delegate to
(spec.KERNELS): naming one is allowed, running it while graded scores that component 0.

The tables, by what they judge: the modules a submission may import and what each lends (libraries.py),
Python's builtins and dunder names (language.py), and the attributes of values and the bases of classes
(values.py). Their readers read them here, as one namespace: policy.MODULES, policy.BUILTINS.
"""

from autograder.engine.contract.policy.language import (
    BUILTINS,
    BY_NAME,
    DUNDERS_DEFINED,
    DUNDERS_READ,
    NAMEDTUPLE,
    ON_SELF,
    ONE_ARGUMENT,
    OWN_RECEIVERS,
)
from autograder.engine.contract.policy.libraries import (
    DENIED,
    MODULE_REASONS,
    MODULES,
    OUTSIDE,
    PUBLIC,
    TORCH_COMPUTING,
    TORCH_MACHINERY,
    TORCH_NAMES,
    TRANSFORMERS_MODELING,
    TRANSFORMERS_MODELS,
)
from autograder.engine.contract.policy.values import (
    BASES_DENIED,
    CONFIG_ATTRIBUTES,
    CONTRACT_ATTRIBUTES,
    FORMATTERS,
    INTERPRETER_TYPES,
    METACLASSES,
    VALUE_DENIED,
    VALUE_INSTANCES,
    VALUE_NAMES,
    VALUE_TYPES,
)

__all__ = [
    "BASES_DENIED",
    "BUILTINS",
    "BY_NAME",
    "CONFIG_ATTRIBUTES",
    "CONTRACT_ATTRIBUTES",
    "DENIED",
    "DUNDERS_DEFINED",
    "DUNDERS_READ",
    "FORMATTERS",
    "INTERPRETER_TYPES",
    "METACLASSES",
    "MODULES",
    "MODULE_REASONS",
    "NAMEDTUPLE",
    "ONE_ARGUMENT",
    "ON_SELF",
    "OUTSIDE",
    "OWN_RECEIVERS",
    "PUBLIC",
    "TORCH_COMPUTING",
    "TORCH_MACHINERY",
    "TORCH_NAMES",
    "TRANSFORMERS_MODELING",
    "TRANSFORMERS_MODELS",
    "VALUE_DENIED",
    "VALUE_INSTANCES",
    "VALUE_NAMES",
    "VALUE_TYPES",
]
