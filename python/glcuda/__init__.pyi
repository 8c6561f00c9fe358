# Type stubs of the glcuda package.
from typing import Any

from ._glcuda import *  # noqa: F403
from ._glcuda import FORMATS as FORMATS, library_version as library_version
from ._glcuda import _profile as _profile
from ._glcuda import Depth, Image, Origin, Stream

__version__: str

class Plane:
    image: Image
    plane: int
    origin: Origin | None
    depth: Depth
    def __init__(self, image: Image, plane: int, *,
                 origin: Origin | None = None,
                 depth: Depth = None) -> None: ...
    def __dlpack__(self, *, stream: Stream = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...
    def copy_to(self, tensor: Any, *, layer: int | None = None,
                stream: Stream = None,
                origin: Origin | None = None) -> None: ...
    def copy_from(self, tensor: Any, *, layer: int | None = None,
                  stream: Stream = None,
                  origin: Origin | None = None) -> None: ...
