"""The fake CUDA driver (tests/fake-cuda) from the tests: its controls,
the few driver calls the tests make (through cuGetProcAddress, as glcuda
loads them), and tensors in its device memory, which is host memory that
the tests read and write."""
import ctypes
import os

# The driver API version of glcuda's declarations (lib/loader/cuda-driver-api.h).
API_VERSION = 12080

KDLCUDA = 2


class FakeCUDA:
    def __init__(self):
        path = os.environ["GLCUDA_LIBCUDA"]
        # The library glcuda loaded: dlopen of the same path shares it.
        self.lib = ctypes.CDLL(path)
        self.lib.fake_cuda_live_objects.restype = ctypes.c_uint
        self.lib.fake_cuda_settle.restype = None
        get = self.lib.cuGetProcAddress_v2
        get.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p]
        self._get = get

    def call(self, name, *args):
        fn = ctypes.c_void_p()
        if self._get(name.encode(), ctypes.byref(fn), API_VERSION, 0,
                     None) != 0:
            raise RuntimeError(f"the fake has no {name}")
        res = ctypes.CFUNCTYPE(ctypes.c_int)(fn.value)(*args)
        if res != 0:
            raise RuntimeError(f"{name}: CUresult {res}")

    def settle(self):
        """Let the fake GPU run everything queued."""
        self.lib.fake_cuda_settle()

    def live_objects(self):
        self.settle()
        return self.lib.fake_cuda_live_objects()

    def in_context(self, context, name, *args):
        self.call("cuCtxPushCurrent", ctypes.c_void_p(context))
        try:
            self.call(name, *args)
        finally:
            self.call("cuCtxPopCurrent", ctypes.byref(ctypes.c_void_p()))

    def alloc(self, context, size):
        ptr = ctypes.c_uint64()
        self.in_context(context, "cuMemAlloc", ctypes.byref(ptr),
                        ctypes.c_size_t(size))
        return ptr.value

    def free(self, context, ptr):
        self.in_context(context, "cuMemFree", ctypes.c_uint64(ptr))

    def stream(self, context):
        s = ctypes.c_void_p()
        self.in_context(context, "cuStreamCreate", ctypes.byref(s),
                        ctypes.c_uint(0))
        return s.value

    def stream_destroy(self, context, stream):
        self.in_context(context, "cuStreamDestroy", ctypes.c_void_p(stream))


TYPESTR = {"uint8": "|u1", "uint16": "<u2", "uint32": "<u4",
           "float16": "<f2", "float32": "<f4"}
ITEMSIZE = {"uint8": 1, "uint16": 2, "uint32": 4, "float16": 2,
            "float32": 4}


class FakeTensor:
    """A tensor in the fake's device memory, offered through
    __cuda_array_interface__ (version 3): shape, dtype name, optional
    strides in bytes (padding allowed). With byte_offset, the tensor
    starts that many bytes into its allocation (base), as a slice of a
    larger one does; the bytes before it are the allocation's too."""

    def __init__(self, cuda, context, shape, dtype, strides=None,
                 readonly=False, stream=None, byte_offset=0):
        self.cuda, self.context = cuda, context
        self.shape, self.dtype = tuple(shape), dtype
        size = ITEMSIZE[dtype]
        if strides is None:
            strides, step = [], size
            for n in reversed(self.shape):
                strides.insert(0, step)
                step *= n
        self.strides = tuple(strides)
        self.nbytes = self.strides[0] * self.shape[0]
        self.byte_offset = byte_offset
        self.base = cuda.alloc(context, byte_offset + self.nbytes)
        self.ptr = self.base + byte_offset
        ctypes.memset(self.base, 0xA5, byte_offset + self.nbytes)
        self.readonly = readonly
        self.stream = stream

    @property
    def __cuda_array_interface__(self):
        cai = {"shape": self.shape, "typestr": TYPESTR[self.dtype],
               "data": (self.ptr, self.readonly), "strides": self.strides,
               "version": 3}
        if self.stream is not None:
            cai["stream"] = self.stream
        return cai

    def read(self):
        """The bytes, once the fake GPU ran what was queued."""
        self.cuda.settle()
        return ctypes.string_at(self.ptr, self.nbytes)

    def read_before(self):
        """The bytes of the allocation before the tensor (byte_offset),
        once the fake GPU ran what was queued."""
        self.cuda.settle()
        return ctypes.string_at(self.base, self.byte_offset)

    def write(self, data):
        ctypes.memmove(self.ptr, data, len(data))

    def free(self):
        if self.base:
            self.cuda.free(self.context, self.base)
            self.base = self.ptr = 0


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8),
                ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensorVersioned._fields_ = [
    ("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None,
                                 ctypes.POINTER(DLManagedTensorVersioned))),
    ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_set_name = ctypes.pythonapi.PyCapsule_SetName
_capsule_set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_name(capsule):
    return _capsule_name(capsule).decode()


def capsule_tensor(capsule):
    """The managed tensor of an unconsumed capsule (versioned or not)."""
    name = capsule_name(capsule)
    kind = (DLManagedTensorVersioned if name == "dltensor_versioned"
            else DLManagedTensor)
    address = _capsule_pointer(capsule, name.encode())
    return ctypes.cast(address, ctypes.POINTER(kind)).contents


def consume(capsule):
    """Take the tensor as a consumer does: rename the capsule "used_...";
    the caller then owns it and calls its deleter."""
    tensor = capsule_tensor(capsule)
    name = "used_" + capsule_name(capsule)
    # The name must outlive the capsule: keep it with the module.
    _names.append(ctypes.c_char_p(name.encode()))
    _capsule_set_name(capsule, _names[-1])
    return tensor


_names = []


def tensor_bytes(cuda, dl):
    """The bytes of a DLTensor (tight strides) once the fake ran."""
    cuda.settle()
    n = dl.bits // 8
    for i in range(dl.ndim):
        n *= dl.shape[i]
    return ctypes.string_at(dl.data + dl.byte_offset, n)


DLPACK_FLAG_BITMASK_READ_ONLY = 1
_deleter_versioned = DLManagedTensorVersioned._fields_[3][1]


class DLPackTensor(FakeTensor):
    """A FakeTensor offered through __dlpack__ instead, as a producer
    before DLPack 1.0 (its __dlpack__ takes no max_version; its capsule
    owns nothing), recording the stream it was asked for. The capsule's
    DLTensor points at the allocation (base), with the tensor's
    byte_offset."""

    def __init__(self, *args, device=(KDLCUDA, 0), **kwargs):
        super().__init__(*args, **kwargs)
        self.device = device
        self.streams = []
        self._keep = []

    @property
    def __cuda_array_interface__(self):
        raise AttributeError("only __dlpack__")

    def __dlpack_device__(self):
        return self.device

    def _dl_tensor(self):
        shape = (ctypes.c_int64 * len(self.shape))(*self.shape)
        size = ITEMSIZE[self.dtype]
        strides = (ctypes.c_int64 * len(self.shape))(
            *(s // size for s in self.strides))
        code = 2 if self.dtype.startswith("float") else 1
        self._keep.append((shape, strides))
        return DLTensor(self.base, self.device[0], self.device[1],
                        len(self.shape), code, size * 8, 1, shape,
                        strides, self.byte_offset)

    def __dlpack__(self, *, stream=None):
        self.streams.append(stream)
        t = DLManagedTensor()
        t.dl_tensor = self._dl_tensor()
        self._keep.append(t)
        return ctypes.pythonapi.PyCapsule_New(
            ctypes.c_void_p(ctypes.addressof(t)), b"dltensor", None)


class VersionedDLPackTensor(DLPackTensor):
    """A DLPack 1.0 producer: a "dltensor_versioned" capsule (flagged
    read-only with readonly=True) for a consumer asking for max_version
    (1, x), else an unversioned one; version: the capsule's (a producer
    that ignores max_version). Its deleter counts its calls in
    deleted."""

    def __init__(self, *args, version=(1, 0), **kwargs):
        super().__init__(*args, **kwargs)
        self.version = version
        self.deleted = 0

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        if max_version is None or max_version[0] < 1:
            return super().__dlpack__(stream=stream)
        self.streams.append(stream)

        def deleter(_):
            self.deleted += 1

        callback = _deleter_versioned(deleter)
        t = DLManagedTensorVersioned()
        t.major, t.minor = self.version
        t.deleter = callback
        t.flags = DLPACK_FLAG_BITMASK_READ_ONLY if self.readonly else 0
        t.dl_tensor = self._dl_tensor()
        self._keep.append((t, callback))
        return ctypes.pythonapi.PyCapsule_New(
            ctypes.c_void_p(ctypes.addressof(t)), b"dltensor_versioned",
            None)


ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                           ctypes.c_void_p]
