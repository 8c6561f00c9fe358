/*
 * glcuda's own declarations of the part of the CUDA driver API it uses.
 * SPDX-License-Identifier: MIT
 *
 * libcuda.so.1 is loaded at run time (cuda-loader.c), so glcuda needs only
 * the driver API's types, constants and prototypes, not the CUDA toolkit:
 * like FFmpeg's dynlink_cuda.h and mpv, it declares the few it uses here,
 * with the ABI of the CUDA driver API (struct layouts, enum values, the
 * versioned entry points). Only what glcuda, its tools, examples and tests
 * use is declared; enums list the values in use, plus their extreme value
 * where the driver's enum has one that sets its size.
 *
 * The prototypes describe the ABI of each function as cuGetProcAddress
 * returns it for GLCUDA_CUDA_API_VERSION: where the ABI changed, the plain
 * name is #defined to the versioned symbol, as <cuda.h> does (cuMemAlloc is
 * cuMemAlloc_v2).
 *
 * With the toolkit, tests/test-cuda-abi checks these declarations against
 * <cuda.h>, <cudaGL.h> and <cudaEGL.h>: the layouts and values
 * (tests/cuda-abi.def) and the prototypes (the toolkit's headers are
 * included first, then this file, whose prototypes must then match the
 * toolkit's declarations). When <cuda.h> was included first, its types are
 * used and only the prototypes are declared again.
 */
#ifndef GLCUDA_CUDA_TYPES_H
#define GLCUDA_CUDA_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* The driver API version whose ABI these declarations describe, passed to
 * cuGetProcAddress. CUDA 12.8: cuEventElapsedTime_v2; the plain
 * cuCtxSynchronize and cuCtxGetDevice (CUDA 13 gave the plain names a
 * context argument). */
#define GLCUDA_CUDA_API_VERSION 12080

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __cuda_cuda_h__ /* not the toolkit's <cuda.h> */

#define CUDAAPI
#define CUDA_CB

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

/* Handles */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
/* CUDA 12.0's libraries: loaded once, context-independent. */
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUarray_st *CUarray;
typedef struct CUmipmappedArray_st *CUmipmappedArray;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUgraphicsResource_st *CUgraphicsResource;
typedef struct CUextMemory_st *CUexternalMemory;
typedef struct CUextSemaphore_st *CUexternalSemaphore;
typedef unsigned long long CUsurfObject;
typedef unsigned long long CUtexObject;

typedef struct CUuuid_st {
	char bytes[16];
} CUuuid;

typedef void (CUDA_CB *CUhostFn)(void *userData);

#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

/* Results */
typedef enum cudaError_enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_ECC_UNCORRECTABLE = 214,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CUDA_ERROR_CONTAINED = 226,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_LAUNCH_TIMEOUT = 702,
	CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
	CUDA_ERROR_ASSERT = 710,
	CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
	CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
	CUDA_ERROR_MISALIGNED_ADDRESS = 716,
	CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
	CUDA_ERROR_INVALID_PC = 718,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_UNKNOWN = 999
} CUresult;

/* Devices, contexts, streams, events */
typedef enum CUdevice_attribute_enum {
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
	CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH = 22,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT = 23,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29,
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
	CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH = 56,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT = 57,
	CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
} CUdevice_attribute;

typedef enum CUctx_flags_enum {
	CU_CTX_SCHED_BLOCKING_SYNC = 0x04
} CUctx_flags;

typedef enum CUstream_flags_enum {
	CU_STREAM_DEFAULT = 0x0,
	CU_STREAM_NON_BLOCKING = 0x1
} CUstream_flags;

typedef enum CUevent_flags_enum {
	CU_EVENT_DEFAULT = 0x0,
	CU_EVENT_BLOCKING_SYNC = 0x1,
	CU_EVENT_DISABLE_TIMING = 0x2,
	CU_EVENT_INTERPROCESS = 0x4
} CUevent_flags;

typedef enum CUdriverProcAddress_flags_enum {
	CU_GET_PROC_ADDRESS_DEFAULT = 0
} CUdriverProcAddress_flags;

typedef enum CUdriverProcAddressQueryResult_enum {
	CU_GET_PROC_ADDRESS_SUCCESS = 0,
	CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
	CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
} CUdriverProcAddressQueryResult;

/* Modules and libraries: glcuda passes no options (NULL arrays, count
 * 0), so one value of each enum stands for the type. */
typedef enum CUjit_option_enum {
	CU_JIT_MAX_REGISTERS = 0
} CUjit_option;

typedef enum CUlibraryOption_enum {
	CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0
} CUlibraryOption;

/* Memory */
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02

typedef enum CUmemorytype_enum {
	CU_MEMORYTYPE_HOST = 0x01,
	CU_MEMORYTYPE_DEVICE = 0x02,
	CU_MEMORYTYPE_ARRAY = 0x03,
	CU_MEMORYTYPE_UNIFIED = 0x04
} CUmemorytype;

typedef struct CUDA_MEMCPY2D_st {
	size_t srcXInBytes;
	size_t srcY;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	size_t srcPitch;
	size_t dstXInBytes;
	size_t dstY;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	size_t dstPitch;
	size_t WidthInBytes;
	size_t Height;
} CUDA_MEMCPY2D;

typedef struct CUDA_MEMCPY3D_st {
	size_t srcXInBytes;
	size_t srcY;
	size_t srcZ;
	size_t srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	void *reserved0;
	size_t srcPitch;
	size_t srcHeight;
	size_t dstXInBytes;
	size_t dstY;
	size_t dstZ;
	size_t dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	void *reserved1;
	size_t dstPitch;
	size_t dstHeight;
	size_t WidthInBytes;
	size_t Height;
	size_t Depth;
} CUDA_MEMCPY3D;

/* Arrays, surfaces, textures */
typedef enum CUarray_format_enum {
	CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
	CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
	CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
	CU_AD_FORMAT_SIGNED_INT8 = 0x08,
	CU_AD_FORMAT_SIGNED_INT16 = 0x09,
	CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
	CU_AD_FORMAT_HALF = 0x10,
	CU_AD_FORMAT_FLOAT = 0x20,
	CU_AD_FORMAT_MAX = 0x7FFFFFFF
} CUarray_format;

#define CUDA_ARRAY3D_LAYERED 0x01
#define CUDA_ARRAY3D_SURFACE_LDST 0x02
#define CUDA_ARRAY3D_COLOR_ATTACHMENT 0x20

typedef struct CUDA_ARRAY3D_DESCRIPTOR_st {
	size_t Width;
	size_t Height;
	size_t Depth;
	CUarray_format Format;
	unsigned int NumChannels;
	unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR;

typedef enum CUresourcetype_enum {
	CU_RESOURCE_TYPE_ARRAY = 0x00,
	CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 0x01,
	CU_RESOURCE_TYPE_LINEAR = 0x02,
	CU_RESOURCE_TYPE_PITCH2D = 0x03
} CUresourcetype;

typedef struct CUDA_RESOURCE_DESC_st {
	CUresourcetype resType;
	union {
		struct {
			CUarray hArray;
		} array;
		struct {
			CUmipmappedArray hMipmappedArray;
		} mipmap;
		struct {
			CUdeviceptr devPtr;
			CUarray_format format;
			unsigned int numChannels;
			size_t sizeInBytes;
		} linear;
		struct {
			CUdeviceptr devPtr;
			CUarray_format format;
			unsigned int numChannels;
			size_t width;
			size_t height;
			size_t pitchInBytes;
		} pitch2D;
		struct {
			int reserved[32];
		} reserved;
	} res;
	unsigned int flags;
} CUDA_RESOURCE_DESC;

typedef enum CUaddress_mode_enum {
	CU_TR_ADDRESS_MODE_WRAP = 0,
	CU_TR_ADDRESS_MODE_CLAMP = 1,
	CU_TR_ADDRESS_MODE_MIRROR = 2,
	CU_TR_ADDRESS_MODE_BORDER = 3
} CUaddress_mode;

typedef enum CUfilter_mode_enum {
	CU_TR_FILTER_MODE_POINT = 0,
	CU_TR_FILTER_MODE_LINEAR = 1
} CUfilter_mode;

#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_SRGB 0x10

typedef struct CUDA_TEXTURE_DESC_st {
	CUaddress_mode addressMode[3];
	CUfilter_mode filterMode;
	unsigned int flags;
	unsigned int maxAnisotropy;
	CUfilter_mode mipmapFilterMode;
	float mipmapLevelBias;
	float minMipmapLevelClamp;
	float maxMipmapLevelClamp;
	float borderColor[4];
	int reserved[12];
} CUDA_TEXTURE_DESC;

/* Only passed (as NULL) to cuTexObjectCreate: the format is left opaque. */
typedef enum CUresourceViewFormat_enum {
	CU_RES_VIEW_FORMAT_NONE = 0x00
} CUresourceViewFormat;

typedef struct CUDA_RESOURCE_VIEW_DESC_st {
	CUresourceViewFormat format;
	size_t width;
	size_t height;
	size_t depth;
	unsigned int firstMipmapLevel;
	unsigned int lastMipmapLevel;
	unsigned int firstLayer;
	unsigned int lastLayer;
	unsigned int reserved[16];
} CUDA_RESOURCE_VIEW_DESC;

/* External memory and semaphores (Vulkan's exported fds) */
typedef enum CUexternalMemoryHandleType_enum {
	CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1
} CUexternalMemoryHandleType;

#define CUDA_EXTERNAL_MEMORY_DEDICATED 0x1

typedef struct CUDA_EXTERNAL_MEMORY_HANDLE_DESC_st {
	CUexternalMemoryHandleType type;
	union {
		int fd;
		struct {
			void *handle;
			const void *name;
		} win32;
		const void *nvSciBufObject;
	} handle;
	unsigned long long size;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_HANDLE_DESC;

typedef struct CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_st {
	unsigned long long offset;
	CUDA_ARRAY3D_DESCRIPTOR arrayDesc;
	unsigned int numLevels;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC;

typedef enum CUexternalSemaphoreHandleType_enum {
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD = 1,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD = 9
} CUexternalSemaphoreHandleType;

typedef struct CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_st {
	CUexternalSemaphoreHandleType type;
	union {
		int fd;
		struct {
			void *handle;
			const void *name;
		} win32;
		const void *nvSciSyncObj;
	} handle;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC;

typedef struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_st {
	struct {
		struct {
			unsigned long long value;
		} fence;
		union {
			void *fence;
			unsigned long long reserved;
		} nvSciSync;
		struct {
			unsigned long long key;
		} keyedMutex;
		unsigned int reserved[12];
	} params;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS;

typedef struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_st {
	struct {
		struct {
			unsigned long long value;
		} fence;
		union {
			void *fence;
			unsigned long long reserved;
		} nvSciSync;
		struct {
			unsigned long long key;
			unsigned int timeoutMs;
		} keyedMutex;
		unsigned int reserved[10];
	} params;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS;

/* Graphics interop (cuGraphicsGLRegisterImage, cuGraphicsEGLRegisterImage) */
typedef enum CUgraphicsRegisterFlags_enum {
	CU_GRAPHICS_REGISTER_FLAGS_NONE = 0x00,
	CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY = 0x01,
	CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD = 0x02,
	CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST = 0x04
} CUgraphicsRegisterFlags;

typedef enum CUgraphicsMapResourceFlags_enum {
	CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE = 0x00,
	CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY = 0x01,
	CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD = 0x02
} CUgraphicsMapResourceFlags;

/* The versioned entry points, as <cuda.h> maps them. */
#define cuDeviceGetUuid cuDeviceGetUuid_v2
#define cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease_v2
#define cuDevicePrimaryCtxSetFlags cuDevicePrimaryCtxSetFlags_v2
#define cuCtxPushCurrent cuCtxPushCurrent_v2
#define cuCtxPopCurrent cuCtxPopCurrent_v2
#define cuMemGetInfo cuMemGetInfo_v2
#define cuStreamDestroy cuStreamDestroy_v2
#define cuStreamWaitValue32 cuStreamWaitValue32_v2
#define cuEventDestroy cuEventDestroy_v2
#define cuEventElapsedTime cuEventElapsedTime_v2
#define cuModuleGetGlobal cuModuleGetGlobal_v2
#define cuMemAlloc cuMemAlloc_v2
#define cuMemFree cuMemFree_v2
#define cuMemAllocHost cuMemAllocHost_v2
#define cuMemHostGetDevicePointer cuMemHostGetDevicePointer_v2
#define cuMemcpyHtoD cuMemcpyHtoD_v2
#define cuMemcpyDtoH cuMemcpyDtoH_v2
#define cuMemcpyHtoDAsync cuMemcpyHtoDAsync_v2
#define cuMemcpyDtoHAsync cuMemcpyDtoHAsync_v2
#define cuMemcpy2D cuMemcpy2D_v2
#define cuMemcpy2DAsync cuMemcpy2DAsync_v2
#define cuMemcpy3DAsync cuMemcpy3DAsync_v2
#define cuMemsetD32 cuMemsetD32_v2
#define cuMemsetD8 cuMemsetD8_v2
#define cuArray3DGetDescriptor cuArray3DGetDescriptor_v2
#define cuGetProcAddress cuGetProcAddress_v2

#endif /* !__cuda_cuda_h__ */

#ifndef CUDAEGL_H /* not the toolkit's <cudaEGL.h> */
typedef enum CUeglFrameType_enum {
	CU_EGL_FRAME_TYPE_ARRAY = 0,
	CU_EGL_FRAME_TYPE_PITCH = 1
} CUeglFrameType;

/* Only carried in CUeglFrame: the formats are left opaque. */
typedef enum CUeglColorFormat_enum {
	CU_EGL_COLOR_FORMAT_YUV420_PLANAR = 0x00
} CUeglColorFormat;

typedef struct CUeglFrame_st {
	union {
		CUarray pArray[3]; /* MAX_PLANES of <cudaEGL.h> */
		void *pPitch[3];
	} frame;
	unsigned int width;
	unsigned int height;
	unsigned int depth;
	unsigned int pitch;
	unsigned int planeCount;
	unsigned int numChannels;
	CUeglFrameType frameType;
	CUeglColorFormat eglColorFormat;
	CUarray_format cuFormat;
} CUeglFrame;
#endif /* !CUDAEGL_H */

/*
 * Prototypes, by the symbol each name resolves to. Never linked against
 * (libcuda is not a link-time dependency): the loader's function table and
 * the fake driver of the tests take their types from them.
 */
CUresult CUDAAPI cuGetProcAddress_v2(
	const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
	CUdriverProcAddressQueryResult *symbolStatus);
CUresult CUDAAPI cuInit(unsigned int Flags);
CUresult CUDAAPI cuDriverGetVersion(int *driverVersion);
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr);
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr);
CUresult CUDAAPI cuDeviceGetCount(int *count);
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal);
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
				      CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev,
					       unsigned int flags);
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
					    int *active);
CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx);
CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx);
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx);
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device);
CUresult CUDAAPI cuCtxSynchronize(void);
CUresult CUDAAPI cuMemGetInfo_v2(size_t *free, size_t *total);
CUresult CUDAAPI
cuImportExternalMemory(CUexternalMemory *extMem_out,
		       const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc);
CUresult CUDAAPI cuDestroyExternalMemory(CUexternalMemory extMem);
CUresult CUDAAPI cuExternalMemoryGetMappedMipmappedArray(
	CUmipmappedArray *mipmap, CUexternalMemory extMem,
	const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc);
CUresult CUDAAPI cuMipmappedArrayGetLevel(CUarray *pLevelArray,
					  CUmipmappedArray hMipmappedArray,
					  unsigned int level);
CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray);
CUresult CUDAAPI cuArray3DGetDescriptor_v2(
	CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray);
CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *pSurfObject,
				    const CUDA_RESOURCE_DESC *pResDesc);
CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject);
CUresult CUDAAPI cuTexObjectCreate(CUtexObject *pTexObject,
				   const CUDA_RESOURCE_DESC *pResDesc,
				   const CUDA_TEXTURE_DESC *pTexDesc,
				   const CUDA_RESOURCE_VIEW_DESC *pResViewDesc);
CUresult CUDAAPI cuTexObjectDestroy(CUtexObject texObject);
CUresult CUDAAPI cuImportExternalSemaphore(
	CUexternalSemaphore *extSem_out,
	const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *semHandleDesc);
CUresult CUDAAPI cuDestroyExternalSemaphore(CUexternalSemaphore extSem);
CUresult CUDAAPI cuSignalExternalSemaphoresAsync(
	const CUexternalSemaphore *extSemArray,
	const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray,
	unsigned int numExtSems, CUstream stream);
CUresult CUDAAPI cuWaitExternalSemaphoresAsync(
	const CUexternalSemaphore *extSemArray,
	const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray,
	unsigned int numExtSems, CUstream stream);
CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream);
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream);
CUresult CUDAAPI cuStreamQuery(CUstream hStream);
CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream,
					    unsigned int flags, int priority);
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority,
					     int *greatestPriority);
CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
				   unsigned int Flags);
CUresult CUDAAPI cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr,
					cuuint32_t value, unsigned int flags);
CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn,
				  void *userData);
CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent);
CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult CUDAAPI cuEventQuery(CUevent hEvent);
CUresult CUDAAPI cuEventSynchronize(CUevent hEvent);
CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart,
				       CUevent hEnd);
CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image);
CUresult CUDAAPI cuModuleUnload(CUmodule hmod);
CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
				     const char *name);
CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes,
				      CUmodule hmod, const char *name);
CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code,
				   CUjit_option *jitOptions,
				   void **jitOptionsValues,
				   unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions,
				   void **libraryOptionValues,
				   unsigned int numLibraryOptions);
CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
				    const char *name);
/* f: a CUfunction, or (CUDA 12.0) a CUkernel cast to one, which runs in
 * the current context. */
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX,
				unsigned int gridDimY, unsigned int gridDimZ,
				unsigned int blockDimX, unsigned int blockDimY,
				unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams, void **extra);
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr);
CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize);
CUresult CUDAAPI cuMemFreeHost(void *p);
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
					      unsigned int Flags);
CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
				 size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice,
				 size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice,
				      const void *srcHost, size_t ByteCount,
				      CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice,
				      size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy);
CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy,
				    CUstream hStream);
CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy,
				    CUstream hStream);
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui,
				size_t N);
CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc,
			       size_t N);
CUresult CUDAAPI cuGraphicsMapResources(unsigned int count,
					CUgraphicsResource *resources,
					CUstream hStream);
CUresult CUDAAPI cuGraphicsUnmapResources(unsigned int count,
					  CUgraphicsResource *resources,
					  CUstream hStream);
CUresult CUDAAPI cuGraphicsSubResourceGetMappedArray(
	CUarray *pArray, CUgraphicsResource resource, unsigned int arrayIndex,
	unsigned int mipLevel);
CUresult CUDAAPI cuGraphicsUnregisterResource(CUgraphicsResource resource);
/* <cudaGL.h>: image is a GLuint, target a GLenum (both unsigned int). */
CUresult CUDAAPI cuGraphicsGLRegisterImage(CUgraphicsResource *pCudaResource,
					   unsigned int image,
					   unsigned int target,
					   unsigned int Flags);
/* <cudaEGL.h>: image is an EGLImageKHR (void *). */
CUresult CUDAAPI cuGraphicsEGLRegisterImage(CUgraphicsResource *pCudaResource,
					    void *image, unsigned int flags);
CUresult CUDAAPI cuGraphicsResourceGetMappedEglFrame(
	CUeglFrame *eglFrame, CUgraphicsResource resource, unsigned int index,
	unsigned int mipLevel);

#ifdef __cplusplus
}
#endif

#endif /* GLCUDA_CUDA_TYPES_H */
