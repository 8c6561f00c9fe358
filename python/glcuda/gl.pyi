# Type stubs of glcuda.gl, the few GL calls of the examples and tests.
from typing import Any

GL_TEXTURE_2D: int
GL_TEXTURE_2D_ARRAY: int
GL_FRAMEBUFFER: int
GL_COLOR_ATTACHMENT0: int
GL_FRAMEBUFFER_COMPLETE: int
GL_RED: int
GL_RG: int
GL_RGBA: int
GL_DEPTH_COMPONENT: int
GL_UNSIGNED_BYTE: int
GL_UNSIGNED_SHORT: int
GL_FLOAT: int
GL_HALF_FLOAT: int
GL_UNSIGNED_INT_2_10_10_10_REV: int
GL_RGBA8: int
GL_RGB8: int
GL_SRGB8_ALPHA8: int
GL_DEPTH_COMPONENT16: int
GL_DEPTH_COMPONENT24: int
GL_DEPTH_COMPONENT32F: int
GL_DEPTH24_STENCIL8: int
GL_DEPTH32F_STENCIL8: int
GL_RENDERBUFFER: int
GL_DEPTH_ATTACHMENT: int
GL_DEPTH_STENCIL_ATTACHMENT: int
GL_TEXTURE_2D_MULTISAMPLE: int
GL_NEAREST: int
GL_TRUE: int
GL_READ_FRAMEBUFFER: int
GL_DRAW_FRAMEBUFFER: int
GL_COLOR_BUFFER_BIT: int
GL_DEPTH_BUFFER_BIT: int
GL_DEPTH_TEST: int
GL_TRIANGLES: int
GL_VERTEX_SHADER: int
GL_FRAGMENT_SHADER: int
GL_VERSION: int
GL_RENDERER: int

class GLError(RuntimeError): ...

class GL:
    def __init__(self) -> None: ...
    def __getattr__(self, name: str) -> Any: ...
    def check(self, what: str) -> None: ...
    def read_pixels(self, framebuffer: int, width: int, height: int,
                    fmt: int, typ: int, size: int, x: int = 0,
                    y: int = 0) -> bytes: ...
    def clear(self, framebuffer: int, width: int, height: int,
              color: tuple[float, float, float, float] | None = None,
              depth: float | None = None,
              scissor: tuple[int, int, int, int] | None = None) -> None: ...
    def program(self, sources: dict[int, str]) -> int: ...

class LayeredScene:
    gl: GL
    program: int
    def __init__(self, gl: GL) -> None: ...
    def draw(self, framebuffer: int, width: int, height: int, layers: int,
             step: int = 0) -> None: ...
    @staticmethod
    def expected(layers: int, width: int, height: int, step: int = 0) -> Any: ...
    def close(self) -> None: ...
