"""The PyTorch names cygrad deliberately leaves out, by category, each with its reason.

A rule names the namespaces it applies to (``None``: every namespace) and the names,
as exact names or ``fnmatch`` patterns. A name cygrad provides is counted as covered
whatever rule would match it, so a rule can never hide a name cygrad has.

Examples
--------
>>> from cygrad.api_coverage.exclusions import exclusion_for
>>> exclusion_for("torch", "cudnn_convolution").key
'backends'
>>> exclusion_for("torch", "exp") is None
True
"""
import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True)
class Exclusion:
    """One category of deliberate exclusions: its key, title, reason and name rules."""
    key: str
    title: str
    reason: str
    names: tuple
    namespaces: tuple = None

    def matches(self, namespace, name):
        if self.namespaces is not None and namespace not in self.namespaces:
            return False
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.names)


EXCLUSIONS = (
    Exclusion(
        "sparse", "Sparse and nested layouts",
        "cygrad tensors are dense and strided: sparse COO/CSR/CSC/BSR/BSC tensors, their "
        "constructors, conversions, index accessors and sparse-dense products, and nested "
        "(jagged) tensors, need other storage formats and kernels.",
        ("*sparse*", "*csr*", "*csc*", "*bsr*", "*bsc*", "*coo*", "coalesce", "is_coalesced",
         "indices", "values", "indices_copy", "values_copy", "*col_indices*", "*row_indices*",
         "crow_indices*", "ccol_indices*", "to_dense", "dense_dim", "smm", "hsmm", "dsmm", "spmm",
         "saddmm", "sspaddmm", "hspmm", "jagged", "is_nested", "to_padded_tensor")),
    Exclusion(
        "quantization", "Quantization",
        "Quantized dtypes and tensors (qint8, per-channel scales, fake quantization, "
        "quantized RNN cells) are a separate tensor kind with their own kernels.",
        ("q_*", "qscheme", "qint*", "quint*", "*quantize*", "dequantize", "int_repr",
         "quantized_*", "per_channel_*", "per_tensor_*", "choose_qparams_optimized",
         "fused_moving_avg_obs_fake_quant", "Q*Storage")),
    Exclusion(
        "jit", "TorchScript, JIT, FX and compiler internals",
        "Classes and functions of TorchScript's C++ IR, its type system, serializer, logger, "
        "benchmark tools and dispatcher, and the entry points that exist for tracing, "
        "export and torch.compile (SymInt guards, slice_inverse): cygrad executes eagerly "
        "and has no graph compiler.",
        ("AliasDb", "AnyType", "Argument", "ArgumentSpec", "AwaitType", "Block", "BoolType",
         "BufferDict", "CallStack", "Capsule", "ClassType", "Code", "CompilationUnit",
         "CompleteArgumentSpec", "ComplexType", "ConcreteModuleType", "ConcreteModuleTypeBuilder",
         "DeepCopyMemoTable", "DeserializationStorageContext", "DeviceObjType", "DictType",
         "EnumType", "ErrorReport", "ExecutionPlan", "FileCheck", "FloatType", "FunctionSchema",
         "FutureType", "Gradient", "Graph", "GraphExecutorState", "IODescriptor", "InferredType",
         "IntType", "InterfaceType", "JITException", "ListType", "LiteScriptModule",
         "ModuleDict", "ParameterDict", "Node", "NoneType", "NumberType", "OperatorInfo",
         "OptionalType", "PyObjectType", "PyTorchFileReader", "PyTorchFileWriter", "RRefType",
         "Script*", "SerializationStorageContext", "StaticModule", "StreamObjType",
         "StringType", "TensorType", "TracingState", "TupleType", "Type", "UnionType", "Use",
         "Value", "AggregationType", "AVG", "SUM", "LockingLogger", "LoggerBase", "NoopLogger",
         "ThroughputBenchmark", "BenchmarkConfig", "BenchmarkExecutionStats", "DispatchKey",
         "DispatchKeySet", "ExcludeDispatchKeyGuard", "Tag", "import_ir_module*", "parse_ir",
         "parse_schema", "parse_type_comment", "merge_type_from_type_comment",
         "unify_type_list", "fork", "wait", "Future", "slice_inverse", "PRIVATE_OPS",
         "BroadcastingList*")),
    Exclusion(
        "tensor_internal", "Tensor attributes of the compiler and prototypes",
        "`Tensor.name` (a TorchScript value name, always None in eager mode) and "
        "`Tensor.index` (binding first-class dimensions of the functorch.dim prototype).",
        ("name", "index"), ("Tensor",)),
    Exclusion(
        "symbolic", "Symbolic shapes",
        "SymInt/SymFloat/SymBool and the sym_* functions stand for sizes that torch.compile "
        "traces symbolically; cygrad's sizes are always Python ints.",
        ("Sym*", "sym_*")),
    Exclusion(
        "backends", "Other backends and accelerators",
        "Entry points of cuDNN, MIOpen, oneDNN (mkldnn), FBGEMM, Vulkan, XLA, MPS, IPU, XPU, "
        "MTIA and MAIA, their autocast settings, and accelerator streams: cygrad runs on the "
        "CPU (CUDA: see docs/cuda.md).",
        ("cudnn_*", "miopen_*", "mkldnn_*", "*mkldnn*", "fbgemm_*", "*vulkan*", "*xla*", "*ipu*",
         "ipu", "xpu", "is_xpu", "mtia", "is_mtia", "is_mps", "is_maia", "get_autocast_gpu_dtype",
         "set_autocast_gpu_dtype", "Stream", "Event", "get_device_module",
         "AcceleratorError", "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
         "scaled_mm", "scaled_grouped_mm", "grouped_mm", "ScalingType", "SwizzleType")),
    Exclusion(
        "storage", "Storage classes",
        "PyTorch's typed and untyped storage classes, and the methods that hand them out or "
        "point a tensor at one (storage, storage_type, set_, is_set_to, from_file): cygrad "
        "exposes memory through `untyped_storage()`'s data pointer and `.numpy()` "
        "rather than a storage object model.",
        ("*Storage", "TypedStorage", "UntypedStorage", "StorageBase", "storage", "storage_type",
         "set_", "is_set_to", "from_file")),
    Exclusion(
        "dtypes", "Dtypes without kernels",
        "Sub-byte, float8/float4, complex32, bit-pattern and unsigned 16/32/64-bit dtypes: in "
        "PyTorch they are storage-only or have few ops (float8/float4 feed the GPU scaled "
        "matmuls); cygrad implements the ten dtypes its kernels support.",
        ("bit", "bits*", "int1", "int2", "int3", "int4", "int5", "int6", "int7", "uint1",
         "uint2", "uint3", "uint4", "uint5", "uint6", "uint7", "uint16", "uint32", "uint64",
         "float8_*", "float4_*", "complex32", "chalf"),
        ("torch", "Tensor")),
    Exclusion(
        "typing", "Typing re-exports",
        "Names a module imports for its own annotations (`Optional`, `Callable`, "
        "`Tensor`, `DType` ...): not part of the namespace's API.",
        ("Callable", "Optional", "Literal", "ParamSpec", "TypeVar", "DType", "Tensor",
         "TYPE_CHECKING"),
        ("nn.functional", "nn.init", "special", "fft", "linalg")),
    Exclusion(
        "private", "Private-ish helpers",
        "Helpers of PyTorch's own implementation that are public only by naming accident: the "
        "__torch_function__ override checks, argument helpers, build and loader flags, "
        "docstring fragments, and process-setup hooks.",
        ("has_torch_function*", "handle_torch_function", "DisableTorchFunction*",
         "boolean_dispatch", "assert_int_or_pair", "classproperty", "USE_GLOBAL_DEPS",
         "USE_RTLD_GLOBAL_WITH_LIBTORCH", "TYPE_CHECKING", "compiled_with_cxx11_abi",
         "get_file_path", "prepare_multiprocessing_environment", "init_num_threads",
         "thread_safe_generator", "*_notes", "GRID_SAMPLE_*", "has_lapack", "has_mkl",
         "has_openmp", "has_spectral", "FatalError")),
    Exclusion(
        "aten_internal", "ATen internal ops",
        "Operators that exist so autograd formulas, SyncBatchNorm or compilers can call ATen "
        "directly (native_* entry points, batch-norm statistics pieces, grid-sampler and "
        "padding kernels behind F.grid_sample and F.pad, weight-norm's helper): users call "
        "the public function instead.",
        ("native_*", "batch_norm_backward_*", "batch_norm_elemt", "batch_norm_gather_stats*",
         "batch_norm_stats", "batch_norm_update_stats", "grid_sampler*", "affine_grid_generator",
         "constant_pad_nd", "norm_except_dim", "embedding_renorm_", "segment_reduce",
         "convolution"),
        ("torch",)),
    Exclusion(
        "removed", "Removed from PyTorch",
        "Functions PyTorch removed in 1.9-2.x that now only raise an error pointing to their "
        "replacement (torch.linalg, torch.distributions): nothing to port.",
        ("eig", "symeig", "lstsq", "solve", "matrix_rank", "reinforce", "volatile"),
        ("torch", "Tensor")),
)


def exclusion_for(namespace, name):
    """The `Exclusion` whose rules match `name` in `namespace`, or `None`.

    Examples
    --------
    >>> from cygrad.api_coverage.exclusions import exclusion_for
    >>> exclusion_for("nn.functional", "Optional").title
    'Typing re-exports'
    """
    for rule in EXCLUSIONS:
        if rule.matches(namespace, name):
            return rule
    return None
