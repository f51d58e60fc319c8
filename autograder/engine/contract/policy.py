"""What a submission may use: the allowed world, as data. Everything else is held for an instructor's review.

Read it as a table (docs/THREATS.md, "The policy"). The static check (child/scrutiny.py) holds any code that
reaches for something this page does not list, and the child runs student code with these builtins alone
(child/allowed.py). A name a rule lets through may still be a kernel that a component may not delegate to
(spec.KERNELS): naming one is allowed, running it while graded scores that component 0.

Each module maps to the names it lends: PUBLIC (every public name of it, as its rule below says, less
DENIED), or a tuple of names. A module reached through another (torch.nn through torch) is judged as
itself; one missing here is outside the list, whatever reaches it.
"""
import re

PUBLIC = "public"
# torch's own rule: its tensor-computing API, the functions torch.overrides lists as overridable by a tensor
# (these are what a TorchFunctionMode, the grader's tripwire, sees), their in-place forms, and the names below.
TORCH_COMPUTING = "torch's tensor-computing API"
# transformers' rule: its configurations are plain data; its models, layers and activations may be named
# (running one while graded is a delegation and scores 0); nothing else of it (hub, files, tokenizers).
TRANSFORMERS_MODELS = "transformers' configurations, and its models and layers as kernels"

# Where transformers keeps its modeling code: a function or value defined there may be named (as a kernel).
TRANSFORMERS_MODELING = re.compile(r"transformers\.(activations|pytorch_utils|modeling_utils|models\.\w+\.modeling_\w+)$")

MODULES = {
    "torch": TORCH_COMPUTING,
    "torch.nn": PUBLIC,
    "torch.nn.functional": PUBLIC,
    "torch.nn.init": PUBLIC,
    "torch.nn.parameter": ("Parameter", "Buffer"),
    "torch.nn.attention": PUBLIC,  # every name of these is torch's attention: a kernel
    "torch.nn.attention.flex_attention": PUBLIC,
    "torch.nn.attention.bias": PUBLIC,
    "torch.nn.utils": ("clip_grad_norm_", "clip_grad_value_"),
    "torch.functional": PUBLIC,
    "torch.linalg": PUBLIC,
    "torch.fft": PUBLIC,
    "torch.special": PUBLIC,
    "torch.optim": PUBLIC,
    "torch.optim.lr_scheduler": PUBLIC,
    "torch.testing": ("assert_close",),
    "torch.cuda": ("is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize"),
    "torch.random": ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"),
    "numpy": PUBLIC,
    "numpy.linalg": PUBLIC,
    "numpy.random": PUBLIC,
    "numpy.fft": PUBLIC,
    "numpy.testing": ("assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_equal",
                      "assert_almost_equal"),
    "math": PUBLIC,
    "cmath": PUBLIC,
    "random": PUBLIC,
    "statistics": PUBLIC,
    "decimal": PUBLIC,
    "fractions": PUBLIC,
    "numbers": PUBLIC,
    "typing": PUBLIC,
    "dataclasses": PUBLIC,
    "functools": PUBLIC,
    "itertools": PUBLIC,
    "collections": PUBLIC,
    "collections.abc": PUBLIC,
    "copy": PUBLIC,
    "abc": PUBLIC,
    "enum": PUBLIC,
    "operator": PUBLIC,
    "heapq": PUBLIC,
    "bisect": PUBLIC,
    "re": PUBLIC,
    "string": PUBLIC,
    "textwrap": PUBLIC,
    "keyword": PUBLIC,
    "time": PUBLIC,
    "__future__": PUBLIC,
    "warnings": ("warn", "filterwarnings", "simplefilter", "catch_warnings", "resetwarnings"),
    "json": ("dumps", "loads"),
    "pprint": ("pprint", "pformat"),
    "contextlib": ("contextmanager", "nullcontext", "suppress", "ExitStack"),
    "types": ("SimpleNamespace",),
    "transformers": TRANSFORMERS_MODELS,
}

# Names a PUBLIC module (or torch's rule) would lend, refused, with why. Each is a way around the grader's
# watch, into files, or into code built from strings.
DENIED = {
    "torch.load": "files, and unpickling", "torch.save": "files", "torch.from_file": "files",
    "torch.compile": "compiled code runs past the grader's watch", "torch.vmap": "it transforms functions past the grader's watch",
    "torch.cond": "compiled control flow", "torch.while_loop": "compiled control flow",
    "torch.set_default_dtype": "it changes how every later tensor is made",
    "torch.set_default_device": "it changes how every later tensor is made",
    "torch.set_default_tensor_type": "it changes how every later tensor is made",
    "torch.set_float32_matmul_precision": "it changes float32 arithmetic for the whole process",
    "torch.set_num_threads": "threads", "torch.set_num_interop_threads": "threads",
    "torch.set_flush_denormal": "it changes float arithmetic for the whole process",
    "torch.use_deterministic_algorithms": "it changes the process's settings",
    "torch.import_ir_module": "compiled code", "torch.import_ir_module_from_buffer": "compiled code",
    "torch.from_dlpack": "raw memory", "torch.to_dlpack": "raw memory",
    "torch.nn.DataParallel": "threads", "torch.nn.functional.boolean_dispatch": "torch's script internals",
    "torch.nn.functional.handle_torch_function": "torch's dispatch machinery",
    "torch.nn.functional.has_torch_function": "torch's dispatch machinery",
    "torch.nn.functional.has_torch_function_unary": "torch's dispatch machinery",
    "torch.nn.functional.has_torch_function_variadic": "torch's dispatch machinery",
    "torch.functional.handle_torch_function": "torch's dispatch machinery",
    "torch.functional.has_torch_function": "torch's dispatch machinery",
    "torch.functional.has_torch_function_unary": "torch's dispatch machinery",
    "torch.functional.has_torch_function_variadic": "torch's dispatch machinery",
    "torch.functional.boolean_dispatch": "torch's script internals",
    "numpy.load": "files, and unpickling", "numpy.save": "files", "numpy.savez": "files",
    "numpy.savez_compressed": "files", "numpy.fromfile": "files", "numpy.memmap": "files", "numpy.loadtxt": "files",
    "numpy.savetxt": "files", "numpy.genfromtxt": "files", "numpy.fromregex": "files", "numpy.DataSource": "files",
    "numpy.source": "it reads code", "numpy.info": "it reads code", "numpy.lookfor": "it reads code",
    "numpy.get_include": "files", "numpy.show_config": "the installation", "numpy.show_runtime": "the installation",
    "typing.get_type_hints": "it evaluates strings as code", "typing.ForwardRef": "it evaluates strings as code",
    "typing.TYPE_CHECKING": "it is for type checkers only",
    "dataclasses.make_dataclass": "it builds classes from strings",
    "functools.singledispatch": "it evaluates annotations as code", "functools.singledispatchmethod": "it evaluates annotations as code",
    "operator.attrgetter": "attributes by computed name", "operator.methodcaller": "methods by computed name",
    "string.Formatter": "it reads attributes by computed name",
    "time.sleep": "sleeping is time the grader waits for",
}

# torch's namespaces that hold its machinery rather than its computing API: an object that comes from one is
# refused wherever it is lent (torch.nn.functional re-exports torch.overrides' handle_torch_function).
TORCH_MACHINERY = ("torch.overrides", "torch._jit_internal", "torch.jit", "torch.utils", "torch.backends", "torch.library",
                   "torch._ops", "torch._dynamo", "torch.fx", "torch.func", "torch._functorch", "torch.multiprocessing",
                   "torch.distributed", "torch._higher_order_ops", "torch.nn.parallel")

# torch's names besides its computing API: tensor factories, seeds, grad modes, dtypes and the types of values.
TORCH_NAMES = (
    "arange", "as_tensor", "asarray", "empty", "empty_like", "empty_strided", "eye", "full", "full_like", "linspace",
    "logspace", "ones", "ones_like", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm",
    "normal", "tensor", "zeros", "zeros_like", "from_numpy", "frombuffer", "scalar_tensor", "tril_indices",
    "triu_indices", "range", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "no_grad",
    "enable_grad", "inference_mode", "set_grad_enabled", "is_grad_enabled", "is_inference_mode_enabled", "is_tensor",
    "get_default_dtype", "get_default_device", "finfo", "iinfo", "promote_types", "result_type", "can_cast",
    "broadcast_shapes", "set_printoptions", "typename", "is_floating_point", "is_complex", "is_nonzero", "numel",
    "Tensor", "Size", "dtype", "device", "Generator", "layout", "memory_format", "autocast", "get_num_threads",
    "BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "HalfTensor", "BFloat16Tensor",
    "FloatTensor", "DoubleTensor",
)

# The builtins a submission may use, by name and as values.
BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "classmethod", "complex",
    "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "id", "int", "isinstance",
    "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord", "pow", "print",
    "property", "range", "repr", "reversed", "round", "set", "slice", "sorted", "staticmethod", "str", "sum", "super",
    "tuple", "zip", "True", "False", "None", "NotImplemented", "Ellipsis",
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "Exception", "FloatingPointError",
    "IndexError", "KeyError", "LookupError", "NotImplementedError", "OverflowError", "RuntimeError", "StopIteration",
    "TypeError", "ValueError", "ZeroDivisionError", "UserWarning", "DeprecationWarning", "RuntimeWarning", "Warning",
})
# Builtins that read or write an attribute by name: allowed called directly, never as values. The name is judged
# as an attribute (a literal) or, computed, checked where the call runs; setattr and delattr only on self.
BY_NAME = ("getattr", "hasattr", "setattr", "delattr")
ON_SELF = ("setattr", "delattr")
# type(x) tells a value's class; type(name, bases, namespace) builds one, past the check of class bases.
ONE_ARGUMENT = ("type",)

# Dunder names code may read (`__name__ == "__main__"`, `super().__init__`, `type(x).__name__`).
DUNDERS_READ = frozenset({"__init__", "__name__", "__qualname__", "__doc__", "__version__", "__call__", "__len__",
                          "__iter__", "__next__", "__getitem__", "__setitem__", "__contains__", "__repr__", "__str__",
                          "__eq__", "__hash__", "__add__", "__mul__", "__matmul__", "__neg__", "__annotations__"})
# Dunder methods a class may define: those of an ordinary class, a container or arithmetic. Not the ones that hook
# into attribute access, class creation, pickling, finalisation or torch's dispatch (__getattr__, __new__, __del__,
# __reduce__, __init_subclass__, __set_name__, __get__, __torch_function__, ...), nor the conversions torch calls
# while it reads its arguments (__index__, __int__, __float__), where its tripwire has stepped aside.
DUNDERS_DEFINED = frozenset({
    "__init__", "__post_init__", "__call__", "__repr__", "__str__", "__format__", "__len__", "__iter__", "__next__",
    "__reversed__", "__getitem__", "__setitem__", "__delitem__", "__contains__", "__missing__", "__bool__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__enter__", "__exit__", "__neg__", "__pos__", "__abs__", "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__",
    "__isub__", "__mul__", "__rmul__", "__imul__", "__matmul__", "__rmatmul__", "__imatmul__", "__truediv__",
    "__rtruediv__", "__itruediv__", "__floordiv__", "__mod__", "__pow__",
})
# A namedtuple's own API begins with an underscore so as not to clash with its fields.
NAMEDTUPLE = frozenset({"_fields", "_asdict", "_replace", "_make", "_field_defaults"})

# The types whose public attributes code may use on any value (with the submission's own classes' names): a
# static check cannot know a value's type, so it knows the attributes of every type a course's code holds.
VALUE_TYPES = (
    "torch.Tensor", "torch.nn.Parameter", "torch.nn.Module", "torch.dtype", "torch.device", "torch.Size",
    "torch.Generator", "torch.finfo", "torch.iinfo", "torch.optim.Optimizer", "torch.optim.lr_scheduler.LRScheduler",
    "numpy.ndarray", "numpy.dtype", "numpy.generic", "builtins.str", "builtins.bytes", "builtins.list",
    "builtins.tuple", "builtins.dict", "builtins.set", "builtins.frozenset", "builtins.int", "builtins.float",
    "builtins.complex", "builtins.bool", "builtins.slice", "builtins.range", "builtins.BaseException",
    "functools.partial", "dataclasses.Field", "collections.OrderedDict", "collections.defaultdict",
    "collections.Counter", "collections.deque", "re.Pattern", "re.Match", "builtins.property",
    "numpy.random.Generator", "contextlib.ExitStack",
)
# Attributes of values built at run time that the types above do not list: an optimiser's and a scheduler's
# state, torch.max's and torch.topk's named results, a property's setter.
VALUE_NAMES = frozenset({"param_groups", "state", "defaults", "last_epoch", "base_lrs", "values", "indices", "setter",
                         "getter", "deleter"})
# A config's attributes: what a BertConfig carries to the child (judge/hf.spec_config; tests/test_policy.py keeps
# the two equal).
CONFIG_ATTRIBUTES = frozenset({
    "add_cross_attention", "attention_probs_dropout_prob", "bos_token_id", "chunk_size_feed_forward",
    "classifier_dropout", "eos_token_id", "hidden_act", "hidden_dropout_prob", "hidden_size", "initializer_range",
    "intermediate_size", "is_decoder", "is_encoder_decoder", "layer_norm_eps", "max_position_embeddings", "model_type",
    "num_attention_heads", "num_hidden_layers", "num_labels", "output_attentions", "output_hidden_states",
    "pad_token_id", "problem_type", "return_dict", "tie_word_embeddings", "type_vocab_size", "use_cache", "vocab_size",
})
# The attributes the reference's modules set, which code graded beside them reads (the contract's submodule
# names, and the sizes they keep); tests/test_policy.py keeps this equal to the solutions' own.
CONTRACT_ATTRIBUTES = frozenset({
    "attention", "attention_norm", "bias", "classifier", "cross_attention", "cross_attention_norm", "decoder", "dense",
    "dropout", "embeddings", "encoder", "eps", "feed_forward", "head", "head_dim", "key", "layer_norm", "layers",
    "linear1", "linear2", "lm_head", "num_heads", "output", "output_norm", "pooler", "position_embeddings", "query",
    "self_attention", "self_attention_norm", "token_embeddings", "token_type_embeddings", "value", "weight",
})
# Values whose own attributes (set in their constructors) a course's code reads: layers' sizes, an optimiser's
# groups, a config's fields. Built with these arguments by the check (child/allowed.py).
VALUE_INSTANCES = {
    "torch.nn.Linear": (1, 1), "torch.nn.Embedding": (1, 1), "torch.nn.LayerNorm": (1,), "torch.nn.Dropout": (),
    "torch.nn.GELU": (), "torch.nn.Softmax": (), "torch.nn.ModuleList": (), "torch.nn.Sequential": (),
    "torch.nn.MultiheadAttention": (2, 1),
}
# Attributes refused on any value, the submission's own classes' included: where they lead (storage shared
# between processes, compiled modules, subclasses of torch.Tensor, files).
VALUE_DENIED = {
    "storage": "raw storage", "untyped_storage": "raw storage", "share_memory_": "memory shared between processes",
    "share_memory": "memory shared between processes", "as_subclass": "a subclass of torch.Tensor",
    "compile": "compiled code runs past the grader's watch", "tofile": "files", "dump": "files", "dumps": "pickling",
    "from_file": "files", "ctypes": "ctypes reaches the process's memory", "cffi": "cffi reaches the process's memory",
    # torch runs these callbacks from inside a torch call, where the grader's tripwire has stepped aside.
    **dict.fromkeys(("apply_", "map_", "map2_"), "it runs Python code where the grader cannot watch it"),
    **dict.fromkeys(("register_hook", "register_post_accumulate_grad_hook", "register_backward_hook",
                     "register_full_backward_hook", "register_full_backward_pre_hook", "register_forward_hook",
                     "register_forward_pre_hook", "register_module_forward_hook"),
                    "a hook runs Python code where the grader cannot watch it"),
}
# Attributes by which code reaches into an object's private state: only a class's own, on self (or cls).
OWN_RECEIVERS = ("self", "cls")
# Interpreter objects whose public attributes lead to frames, code and the grader's state (gi_frame, f_back,
# tb_frame, co_code, cell_contents, ...): every such name that no type above shares is refused on any value.
INTERPRETER_TYPES = ("FrameType", "TracebackType", "GeneratorType", "CoroutineType", "AsyncGeneratorType", "CodeType",
                     "CellType", "FunctionType", "MethodType", "ModuleType", "BuiltinFunctionType")

# Classes a submission's class may not derive from, however it names them: what hooks into torch's dispatch.
BASES_DENIED = {
    "torch.Tensor": "a subclass of torch.Tensor can hide torch calls from the grader",
    "torch.overrides.TorchFunctionMode": "function modes are how the grader watches delegation",
    "torch.utils._python_dispatch.TorchDispatchMode": "dispatch modes are how the grader watches delegation",
    "torch.autograd.Function": "a custom autograd Function writes its own gradients",
}
METACLASSES = ("abc.ABCMeta",)

# What a held construct is told when nothing above says more.
OUTSIDE = "outside what grading runs"
# Why some modules outside the list are, for the messages that name them.
MODULE_REASONS = {
    "sys": "the interpreter's internals", "os": "the process's files, signals and children",
    "gc": "a gc walk reaches the grader's objects", "ctypes": "ctypes reaches the process's memory",
    "threading": "threads escape the grader's watch", "_thread": "threads escape the grader's watch",
    "concurrent": "threads and processes escape the grader's watch", "multiprocessing": "processes escape the grader's watch",
    "subprocess": "processes escape the grader's watch", "asyncio": "an event loop's tasks and threads", "socket": "sockets",
    "signal": "signals can stop the grader's processes", "importlib": "it loads code by name, past the grader's import rules",
    "runpy": "it runs files by path", "inspect": "it reads the grader's frames and source", "pickle": "unpickling calls functions chosen by data",
    "marshal": "it builds code objects", "code": "it runs strings", "builtins": "it replaces the functions the grader uses",
    "io": "files", "pathlib": "files", "shutil": "files", "tempfile": "files", "mmap": "shared memory",
    "traceback": "frames hold the grader's state", "weakref": "finalisers run code when the grader collects garbage",
    "torch.utils": "torch's machinery (data loaders start worker processes)", "torch.autograd": "custom autograd Functions write their own gradients",
    "torch.ops": "torch's operator registry reaches kernels past the grader's check", "torch.overrides": "function modes are how the grader watches delegation",
    "torch.jit": "compiled code runs past the grader's watch", "torch.multiprocessing": "processes escape the grader's watch",
    "matplotlib": "plots are for your notebook; grading draws nothing", "pandas": "tables are for your notebook", "tqdm": "progress bars are for your notebook",
}
