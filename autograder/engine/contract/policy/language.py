"""The policy's Python: the builtins a submission may use, those it may call only in some ways, and the dunder
names it may read or define.
"""

import builtins

# The standard library's exception and warning classes: naming, catching and raising one runs nothing of it
# (`except (ImportError, RuntimeError, OSError)` around an optional import is honest code).
EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)

# The builtins a submission may use, by name and as values.
BUILTINS = frozenset(
    {
        "abs",
        "all",
        "any",
        "ascii",
        "bin",
        "bool",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "classmethod",
        "complex",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "format",
        "frozenset",
        "hash",
        "hex",
        "id",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "map",
        "max",
        "min",
        "next",
        "object",
        "oct",
        "ord",
        "pow",
        "print",
        "property",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "slice",
        "sorted",
        "staticmethod",
        "str",
        "sum",
        "super",
        "tuple",
        "zip",
        "True",
        "False",
        "None",
        "NotImplemented",
        "Ellipsis",
    }
    | EXCEPTIONS
)

# Builtins that read or write an attribute by name: allowed called directly, never as values. The name is judged
# as an attribute (a literal) or, computed, checked where the call runs; setattr and delattr only on self.
BY_NAME = ("getattr", "hasattr", "setattr", "delattr")

ON_SELF = ("setattr", "delattr")

# type(x) tells a value's class; type(name, bases, namespace) builds one, past the check of class bases.
ONE_ARGUMENT = ("type",)

# Dunder names code may read (`__name__ == "__main__"`, `super().__init__`, `type(x).__name__`).
DUNDERS_READ = frozenset(
    {
        "__init__",
        "__name__",
        "__qualname__",
        "__doc__",
        "__version__",
        "__call__",
        "__len__",
        "__iter__",
        "__next__",
        "__getitem__",
        "__setitem__",
        "__contains__",
        "__repr__",
        "__str__",
        "__eq__",
        "__hash__",
        "__add__",
        "__mul__",
        "__matmul__",
        "__neg__",
        "__annotations__",
    }
)

# Dunder methods a class may define: those of an ordinary class, a container or arithmetic. Not the ones that hook
# into attribute access, class creation, pickling, finalisation or torch's dispatch (__getattr__, __new__, __del__,
# __reduce__, __init_subclass__, __set_name__, __get__, __torch_function__, ...), nor the conversions torch calls
# while it reads its arguments (__index__, __int__, __float__), where its tripwire has stepped aside.
DUNDERS_DEFINED = frozenset(
    {
        "__init__",
        "__post_init__",
        "__call__",
        "__repr__",
        "__str__",
        "__format__",
        "__len__",
        "__iter__",
        "__next__",
        "__reversed__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__contains__",
        "__missing__",
        "__bool__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__enter__",
        "__exit__",
        "__neg__",
        "__pos__",
        "__abs__",
        "__add__",
        "__radd__",
        "__iadd__",
        "__sub__",
        "__rsub__",
        "__isub__",
        "__mul__",
        "__rmul__",
        "__imul__",
        "__matmul__",
        "__rmatmul__",
        "__imatmul__",
        "__truediv__",
        "__rtruediv__",
        "__itruediv__",
        "__floordiv__",
        "__mod__",
        "__pow__",
    }
)

# A namedtuple's own API begins with an underscore so as not to clash with its fields.
NAMEDTUPLE = frozenset({"_fields", "_asdict", "_replace", "_make", "_field_defaults"})

# Attributes by which code reaches into an object's private state: only a class's own, on self (or cls).
OWN_RECEIVERS = ("self", "cls")
