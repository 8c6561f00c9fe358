"""The few GL calls glcuda's examples and tests make, through ctypes.

Not a GL binding: enough to clear, draw a layered scene with a geometry
shader and read pixels back, so that the examples and tests run where no
GL binding for Python is installed (moderngl or PyOpenGL work as well:
glcuda takes their textures and contexts). Entry points come from
eglGetProcAddress (EGL 1.5 returns core functions too), so the same calls
work on desktop GL and GLES contexts, whichever is current.
"""
import ctypes
import ctypes.util

GL_TEXTURE_2D = 0x0DE1
GL_TEXTURE_2D_ARRAY = 0x8C1A
GL_FRAMEBUFFER = 0x8D40
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_COLOR_ATTACHMENT0 = 0x8CE0
GL_FRAMEBUFFER_COMPLETE = 0x8CD5
GL_COLOR_BUFFER_BIT = 0x4000
GL_DEPTH_BUFFER_BIT = 0x0100
GL_SCISSOR_TEST = 0x0C11
GL_DEPTH_TEST = 0x0B71
GL_TRIANGLES = 0x0004
GL_RED = 0x1903
GL_RG = 0x8227
GL_RGBA = 0x1908
GL_DEPTH_COMPONENT = 0x1902
GL_UNSIGNED_BYTE = 0x1401
GL_UNSIGNED_SHORT = 0x1403
GL_FLOAT = 0x1406
GL_HALF_FLOAT = 0x140B
GL_UNSIGNED_INT_2_10_10_10_REV = 0x8368
GL_RGBA8 = 0x8058
GL_RGB8 = 0x8051
GL_SRGB8_ALPHA8 = 0x8C43
GL_DEPTH_COMPONENT16 = 0x81A5
GL_DEPTH_COMPONENT24 = 0x81A6
GL_DEPTH_COMPONENT32F = 0x8CAC
GL_DEPTH24_STENCIL8 = 0x88F0
GL_DEPTH32F_STENCIL8 = 0x8CAD
GL_RENDERBUFFER = 0x8D41
GL_DEPTH_ATTACHMENT = 0x8D00
GL_DEPTH_STENCIL_ATTACHMENT = 0x821A
GL_TEXTURE_2D_MULTISAMPLE = 0x9100
GL_NEAREST = 0x2600
GL_TRUE = 1
GL_PACK_ALIGNMENT = 0x0D05
GL_VERTEX_SHADER = 0x8B31
GL_GEOMETRY_SHADER = 0x8DD9
GL_FRAGMENT_SHADER = 0x8B30
GL_COMPILE_STATUS = 0x8B81
GL_LINK_STATUS = 0x8B82
GL_VERSION = 0x1F02
GL_RENDERER = 0x1F01
GL_NO_ERROR = 0

_VOID = None
_U = ctypes.c_uint
_I = ctypes.c_int
_F = ctypes.c_float
_P = ctypes.c_void_p

# name: (restype, argtypes)
_PROTOTYPES = {
    "glGetError": (_U, []),
    "glGetString": (ctypes.c_char_p, [_U]),
    "glFinish": (_VOID, []),
    "glFlush": (_VOID, []),
    "glEnable": (_VOID, [_U]),
    "glDisable": (_VOID, [_U]),
    "glViewport": (_VOID, [_I, _I, _I, _I]),
    "glScissor": (_VOID, [_I, _I, _I, _I]),
    "glClearColor": (_VOID, [_F, _F, _F, _F]),
    "glClearDepthf": (_VOID, [_F]),
    "glClear": (_VOID, [_U]),
    "glBindFramebuffer": (_VOID, [_U, _U]),
    "glPixelStorei": (_VOID, [_U, _I]),
    "glReadPixels": (_VOID, [_I, _I, _I, _I, _U, _U, _P]),
    "glGenTextures": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glDeleteTextures": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glBindTexture": (_VOID, [_U, _U]),
    "glTexStorage2D": (_VOID, [_U, _I, _U, _I, _I]),
    "glTexStorage3D": (_VOID, [_U, _I, _U, _I, _I, _I]),
    "glGenFramebuffers": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glDeleteFramebuffers": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glFramebufferTexture": (_VOID, [_U, _U, _U, _I]),
    "glFramebufferTextureLayer": (_VOID, [_U, _U, _U, _I, _I]),
    "glCheckFramebufferStatus": (_U, [_U]),
    "glCreateShader": (_U, [_U]),
    "glShaderSource": (_VOID, [_U, _I, ctypes.POINTER(ctypes.c_char_p), _P]),
    "glCompileShader": (_VOID, [_U]),
    "glGetShaderiv": (_VOID, [_U, _U, ctypes.POINTER(_I)]),
    "glGetShaderInfoLog": (_VOID, [_U, _I, _P, ctypes.c_char_p]),
    "glDeleteShader": (_VOID, [_U]),
    "glCreateProgram": (_U, []),
    "glAttachShader": (_VOID, [_U, _U]),
    "glLinkProgram": (_VOID, [_U]),
    "glGetProgramiv": (_VOID, [_U, _U, ctypes.POINTER(_I)]),
    "glGetProgramInfoLog": (_VOID, [_U, _I, _P, ctypes.c_char_p]),
    "glUseProgram": (_VOID, [_U]),
    "glDeleteProgram": (_VOID, [_U]),
    "glGetUniformLocation": (_I, [_U, ctypes.c_char_p]),
    "glUniform1i": (_VOID, [_I, _I]),
    "glGenVertexArrays": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glDeleteVertexArrays": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glBindVertexArray": (_VOID, [_U]),
    "glDrawArraysInstanced": (_VOID, [_U, _I, _I, _I]),
    # Framebuffers of renderbuffers and multisampled textures, drawn with
    # depth and resolved, as renderers make them.
    "glDrawArrays": (_VOID, [_U, _I, _I]),
    "glDepthFunc": (_VOID, [_U]),
    "glGenRenderbuffers": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glDeleteRenderbuffers": (_VOID, [_I, ctypes.POINTER(_U)]),
    "glBindRenderbuffer": (_VOID, [_U, _U]),
    "glRenderbufferStorage": (_VOID, [_U, _U, _I, _I]),
    "glRenderbufferStorageMultisample": (_VOID, [_U, _I, _U, _I, _I]),
    "glFramebufferRenderbuffer": (_VOID, [_U, _U, _U, _U]),
    "glFramebufferTexture2D": (_VOID, [_U, _U, _U, _U, _I]),
    "glTexStorage2DMultisample": (_VOID, [_U, _I, _U, _I, _I, ctypes.c_ubyte]),
    "glBlitFramebuffer": (_VOID, [_I, _I, _I, _I, _I, _I, _I, _I, _U, _U]),
}


class GLError(RuntimeError):
    """A GL call failed, or a shader did not compile or link."""


class GL:
    """GL entry points of the current context's API, as attributes."""

    def __init__(self):
        egl = ctypes.CDLL(ctypes.util.find_library("EGL") or "libEGL.so.1")
        get_proc = egl.eglGetProcAddress
        get_proc.restype = _P
        get_proc.argtypes = [ctypes.c_char_p]
        for name, (restype, argtypes) in _PROTOTYPES.items():
            address = get_proc(name.encode())
            if not address:
                raise GLError(f"eglGetProcAddress({name}) found nothing")
            fn = ctypes.CFUNCTYPE(restype, *argtypes)(address)
            setattr(self, name, fn)

    def check(self, what):
        """Raise GLError if GL recorded an error."""
        err = self.glGetError()
        if err != GL_NO_ERROR:
            raise GLError(f"{what}: GL error 0x{err:04x}")

    def read_pixels(self, framebuffer, width, height, fmt, typ, size, x=0,
                    y=0):
        """glReadPixels of a framebuffer (the rectangle at x, y), as bytes
        (rows bottom first)."""
        buf = ctypes.create_string_buffer(width * height * size)
        self.glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        self.glPixelStorei(GL_PACK_ALIGNMENT, 1)
        self.glReadPixels(x, y, width, height, fmt, typ, buf)
        self.glBindFramebuffer(GL_FRAMEBUFFER, 0)
        self.check("glReadPixels")
        return buf.raw

    def clear(self, framebuffer, width, height, color=None, depth=None,
              scissor=None):
        """Clear a framebuffer's colour and/or depth (in a scissor box)."""
        bits = 0
        self.glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        self.glViewport(0, 0, width, height)
        if scissor:
            self.glEnable(GL_SCISSOR_TEST)
            self.glScissor(*scissor)
        if color is not None:
            self.glClearColor(*color)
            bits |= GL_COLOR_BUFFER_BIT
        if depth is not None:
            self.glClearDepthf(depth)
            bits |= GL_DEPTH_BUFFER_BIT
        self.glClear(bits)
        self.glDisable(GL_SCISSOR_TEST)
        self.glBindFramebuffer(GL_FRAMEBUFFER, 0)
        self.check("glClear")

    def _check_status(self, obj, getiv, get_log, status, what):
        ok = _I(0)
        getiv(obj, status, ctypes.byref(ok))
        if not ok.value:
            log = ctypes.create_string_buffer(4096)
            get_log(obj, 4096, None, log)
            raise GLError(f"{what}: {log.value.decode(errors='replace')}")

    def _shader(self, kind, source):
        shader = self.glCreateShader(kind)
        src = ctypes.c_char_p(source.encode())
        self.glShaderSource(shader, 1, ctypes.byref(src), None)
        self.glCompileShader(shader)
        try:
            self._check_status(shader, self.glGetShaderiv,
                               self.glGetShaderInfoLog, GL_COMPILE_STATUS,
                               "shader")
        except GLError:
            self.glDeleteShader(shader)
            raise
        return shader

    def program(self, sources):
        """Link a program from {GL_VERTEX_SHADER: source, ...}."""
        program = self.glCreateProgram()
        try:
            shaders = [self._shader(kind, src)
                       for kind, src in sources.items()]
        except GLError:
            self.glDeleteProgram(program)
            raise
        for shader in shaders:
            self.glAttachShader(program, shader)
        self.glLinkProgram(program)
        for shader in shaders:
            self.glDeleteShader(shader)
        try:
            self._check_status(program, self.glGetProgramiv,
                               self.glGetProgramInfoLog, GL_LINK_STATUS,
                               "link")
        except GLError:
            self.glDeleteProgram(program)
            raise
        return program


# One layered draw: instance i's triangles go to layer i (a geometry
# shader sets gl_Layer: GL 4.5 core and GLES 3.2 both have it). The
# fragment colour is exact in 8-bit formats: ((layer * 7 + step) & 255,
# (x + y) & 255, layer & 255, 255) / 255 at pixel (x, y).
LAYERED_VERTEX = """#version 450 core
flat out int v_layer;
void main()
{
	/* A triangle that covers the viewport. */
	vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
	v_layer = gl_InstanceID;
	gl_Position = vec4(p, 0.0, 1.0);
}
"""
LAYERED_GEOMETRY = """#version 450 core
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
flat in int v_layer[];
flat out int g_layer;
void main()
{
	for (int i = 0; i < 3; i++) {
		gl_Layer = v_layer[0];
		g_layer = v_layer[0];
		gl_Position = gl_in[i].gl_Position;
		EmitVertex();
	}
	EndPrimitive();
}
"""
LAYERED_FRAGMENT = """#version 450 core
flat in int g_layer;
uniform int u_step;
out vec4 colour;
void main()
{
	ivec2 p = ivec2(gl_FragCoord.xy);
	colour = vec4(float((g_layer * 7 + u_step) & 255),
		      float((p.x + p.y) & 255), float(g_layer & 255),
		      255.0) / 255.0;
}
"""


class LayeredScene:
    """The layered draw above: draw(framebuffer, width, height, layers,
    step) fills every layer of a layered framebuffer in one draw call."""

    def __init__(self, gl):
        self.gl = gl
        version = "#version 450 core"
        if b"OpenGL ES" in (gl.glGetString(GL_VERSION) or b""):
            version = "#version 320 es\nprecision highp float;"
        sources = {GL_VERTEX_SHADER: LAYERED_VERTEX,
                   GL_GEOMETRY_SHADER: LAYERED_GEOMETRY,
                   GL_FRAGMENT_SHADER: LAYERED_FRAGMENT}
        self.program = gl.program({
            kind: src.replace("#version 450 core", version)
            for kind, src in sources.items()})
        self.step_location = gl.glGetUniformLocation(self.program, b"u_step")
        vao = _U(0)
        gl.glGenVertexArrays(1, ctypes.byref(vao))
        self.vao = vao.value

    def draw(self, framebuffer, width, height, layers, step=0):
        gl = self.gl
        gl.glBindFramebuffer(GL_FRAMEBUFFER, framebuffer)
        gl.glViewport(0, 0, width, height)
        gl.glUseProgram(self.program)
        gl.glUniform1i(self.step_location, step)
        gl.glBindVertexArray(self.vao)
        gl.glDrawArraysInstanced(GL_TRIANGLES, 0, 3, layers)
        gl.glBindVertexArray(0)
        gl.glUseProgram(0)
        gl.glBindFramebuffer(GL_FRAMEBUFFER, 0)
        gl.check("layered draw")

    @staticmethod
    def expected(layers, width, height, step=0):
        """The pixels of the draw, a (layers, height, width, 4) uint8
        numpy array; row 0 is GL's y = 0, as in glReadPixels and in the
        image's tensors. Needs numpy."""
        import numpy as np

        y, x = np.mgrid[0:height, 0:width]
        out = np.empty((layers, height, width, 4), np.uint8)
        for layer in range(layers):
            out[layer, ..., 0] = (layer * 7 + step) & 255
            out[layer, ..., 1] = (x + y) & 255
            out[layer, ..., 2] = layer & 255
            out[layer, ..., 3] = 255
        return out

    def close(self):
        vao = _U(self.vao)
        self.gl.glDeleteVertexArrays(1, ctypes.byref(vao))
        self.gl.glDeleteProgram(self.program)
