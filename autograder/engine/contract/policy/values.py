"""The policy's values: the attributes code may use on any value (those of the types and values a course's
code holds, a config's, the contract's), those refused on every value, and the classes a submission's class
may not derive from.
"""

# The types whose public attributes code may use on any value (with the submission's own classes' names): a
# static check cannot know a value's type, so it knows the attributes of every type a course's code holds.
VALUE_TYPES = (
    "torch.Tensor",
    "torch.nn.Parameter",
    "torch.nn.Module",
    "torch.dtype",
    "torch.device",
    "torch.Size",
    "torch.Generator",
    "torch.finfo",
    "torch.iinfo",
    "torch.optim.Optimizer",
    "torch.optim.lr_scheduler.LRScheduler",
    "numpy.ndarray",
    "numpy.dtype",
    "numpy.generic",
    "builtins.str",
    "builtins.bytes",
    "builtins.list",
    "builtins.tuple",
    "builtins.dict",
    "builtins.set",
    "builtins.frozenset",
    "builtins.int",
    "builtins.float",
    "builtins.complex",
    "builtins.bool",
    "builtins.slice",
    "builtins.range",
    "builtins.BaseException",
    "functools.partial",
    "dataclasses.Field",
    "collections.OrderedDict",
    "collections.defaultdict",
    "collections.Counter",
    "collections.deque",
    "re.Pattern",
    "re.Match",
    "builtins.property",
    "numpy.random.Generator",
    "contextlib.ExitStack",
)

# Attributes of values built at run time that the types above do not list: an optimiser's and a scheduler's
# state, torch.max's and torch.topk's named results, a property's setter.
VALUE_NAMES = frozenset(
    {"param_groups", "state", "defaults", "last_epoch", "base_lrs", "values", "indices", "setter", "getter", "deleter"}
)

# A config's attributes: what a BertConfig carries to the child (judge/hf.spec_config; tests/unit/test_policy.py keeps
# the two equal).
CONFIG_ATTRIBUTES = frozenset(
    {
        "add_cross_attention",
        "attention_probs_dropout_prob",
        "bos_token_id",
        "chunk_size_feed_forward",
        "classifier_dropout",
        "eos_token_id",
        "hidden_act",
        "hidden_dropout_prob",
        "hidden_size",
        "initializer_range",
        "intermediate_size",
        "is_decoder",
        "is_encoder_decoder",
        "layer_norm_eps",
        "max_position_embeddings",
        "model_type",
        "num_attention_heads",
        "num_hidden_layers",
        "num_labels",
        "output_attentions",
        "output_hidden_states",
        "pad_token_id",
        "problem_type",
        "return_dict",
        "tie_word_embeddings",
        "type_vocab_size",
        "use_cache",
        "vocab_size",
    }
)

# The attributes the reference's modules set, which code graded beside them reads (the contract's submodule
# names, and the sizes they keep); tests/unit/test_policy.py keeps this equal to the solutions' own.
CONTRACT_ATTRIBUTES = frozenset(
    {
        "attention",
        "attention_norm",
        "bias",
        "classifier",
        "cross_attention",
        "cross_attention_norm",
        "decoder",
        "dense",
        "dropout",
        "embeddings",
        "encoder",
        "eps",
        "feed_forward",
        "head",
        "head_dim",
        "key",
        "layer_norm",
        "layers",
        "linear1",
        "linear2",
        "lm_head",
        "num_heads",
        "output",
        "output_norm",
        "pooler",
        "position_embeddings",
        "query",
        "self_attention",
        "self_attention_norm",
        "token_embeddings",
        "token_type_embeddings",
        "value",
        "weight",
    }
)

# Values whose own attributes (set in their constructors) a course's code reads: layers' sizes, an optimiser's
# groups, a config's fields. Built with these arguments by the check (child/allowed.py).
VALUE_INSTANCES = {
    "torch.nn.Linear": (1, 1),
    "torch.nn.Embedding": (1, 1),
    "torch.nn.LayerNorm": (1,),
    "torch.nn.Dropout": (),
    "torch.nn.GELU": (),
    "torch.nn.Softmax": (),
    "torch.nn.ModuleList": (),
    "torch.nn.Sequential": (),
    "torch.nn.MultiheadAttention": (2, 1),
}

# Attributes refused on any value, the submission's own classes' included: where they lead (storage shared
# between processes, compiled modules, subclasses of torch.Tensor, files).
VALUE_DENIED = {
    "storage": "raw storage",
    "untyped_storage": "raw storage",
    "share_memory_": "memory shared between processes",
    "share_memory": "memory shared between processes",
    "as_subclass": "a subclass of torch.Tensor",
    "compile": "compiled code runs past the grader's watch",
    "tofile": "files",
    "dump": "files",
    "dumps": "pickling",
    "from_file": "files",
    "ctypes": "ctypes reaches the process's memory",
    "cffi": "cffi reaches the process's memory",
    # torch runs these callbacks from inside a torch call, where the grader's tripwire has stepped aside.
    **dict.fromkeys(("apply_", "map_", "map2_"), "it runs Python code where the grader cannot watch it"),
    **dict.fromkeys(
        (
            "register_hook",
            "register_post_accumulate_grad_hook",
            "register_backward_hook",
            "register_full_backward_hook",
            "register_full_backward_pre_hook",
            "register_forward_hook",
            "register_forward_pre_hook",
            "register_module_forward_hook",
        ),
        "a hook runs Python code where the grader cannot watch it",
    ),
}

# A string's methods that read attributes and items of their arguments by names in its text ("{0.__code__}"): on a
# string literal, whose fields the check reads as the attributes they are; refused on a string built at run time.
FORMATTERS = {"format": "str.format", "format_map": "str.format_map"}

# Interpreter objects whose public attributes lead to frames, code and the grader's state (gi_frame, f_back,
# tb_frame, co_code, cell_contents, ...): every such name that no type above shares is refused on any value.
INTERPRETER_TYPES = (
    "FrameType",
    "TracebackType",
    "GeneratorType",
    "CoroutineType",
    "AsyncGeneratorType",
    "CodeType",
    "CellType",
    "FunctionType",
    "MethodType",
    "ModuleType",
    "BuiltinFunctionType",
)

# Classes a submission's class may not derive from, however it names them: what hooks into torch's dispatch.
BASES_DENIED = {
    "torch.Tensor": "a subclass of torch.Tensor can hide torch calls from the grader",
    "torch.overrides.TorchFunctionMode": "function modes are how the grader watches delegation",
    "torch.utils._python_dispatch.TorchDispatchMode": "dispatch modes are how the grader watches delegation",
    "torch.autograd.Function": "a custom autograd Function writes its own gradients",
}

METACLASSES = ("abc.ABCMeta",)
