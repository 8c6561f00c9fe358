"""Build glcuda's extension module against the installed libglcuda.

setuptools builds it: it is what Debian ships (python3-setuptools), it
builds C extensions for the stable ABI (py_limited_api, one abi3 module for
Python 3.11 and every later one) with no other tool, and pip drives it
offline with --no-build-isolation. The flags come from pkg-config's glcuda
(and egl: the module asks EGL for the current context), so this needs
glcuda installed, or PKG_CONFIG_PATH naming the directory of its glcuda.pc.
"""
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup

LIMITED_API = "0x030B0000"  # Python 3.11: Debian 12's


def pkg_config(*args):
    pkg_config = os.environ.get("PKG_CONFIG", "pkg-config")
    try:
        out = subprocess.run([pkg_config, *args, "glcuda >= 1.1", "egl"],
                             check=True, capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit(f"glcuda: {pkg_config} not found: install pkg-config")
    except subprocess.CalledProcessError as e:
        sys.exit("glcuda: pkg-config finds no glcuda >= 1.1 (or no egl): "
                 f"{e.stderr.strip()}\nInstall glcuda, or set "
                 "PKG_CONFIG_PATH to the directory of its glcuda.pc")
    return out.stdout


def flags(option, prefix):
    return [f[len(prefix):] for f in shlex.split(pkg_config(option))
            if f.startswith(prefix)]


version = pkg_config("--modversion").split()[0]
library_dirs = flags("--libs-only-L", "-L")
sources = ["copy.c", "device.c", "dlpack.c", "errors.c", "image.c",
           "module.c", "stream.c", "options.c", "capture.c",
           "profile.c", "log.c"]

setup(
    version=version,
    ext_modules=[Extension(
        "glcuda._glcuda",
        sources=[os.path.join("src", s) for s in sources],
        depends=[os.path.join("src", h) for h in ("module.h", "cuda-types.h")],
        include_dirs=flags("--cflags-only-I", "-I"),
        library_dirs=library_dirs,
        runtime_library_dirs=library_dirs,
        libraries=flags("--libs-only-l", "-l"),
        define_macros=[("Py_LIMITED_API", LIMITED_API)],
        py_limited_api=True,
    )],
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
