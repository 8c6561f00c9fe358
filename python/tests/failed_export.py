"""An export that fails, in a process of its own (test_dlpack.py's
test_failed_export runs it): the error must reach Python with the GIL
taken back and the device's lock released, or the interpreter dies
(Fatal Python error, a crash) or hangs, and the test with it.

    python failed_export.py KIND WAY

KIND: a key of FAILURES; WAY: a key of WAYS. Another thread runs Python
all along. Prints one line of JSON: each failed call's exception (class,
message), what the call after each did, and whether the other threads
ran."""
import json
import os
import sys
import threading

import glcuda

# The keyword arguments of the call, and GLCUDA_FAKE_CUDA_FAIL.
FAILURES = {
    "bad plane": ({"plane": 5}, ""),
    "out of memory": ({}, "cuMemAlloc:1"),
    # In GL's row order: several layers go through the copy engine.
    "device lost": ({"origin": "bottom-left"},
                    "cuMemcpy3DAsync:1:CUDA_ERROR_LAUNCH_FAILED"),
}

WAYS = {
    "unversioned": lambda img, kw: img.__dlpack__(**kw),
    "versioned": lambda img, kw: img.__dlpack__(max_version=(1, 0), **kw),
    "cuda_array_interface": lambda img, kw: img.cuda_array_interface(**kw),
}

CALLS = 5


def main(kind, way):
    kwargs, fail = FAILURES[kind]
    export = WAYS[way]
    stop = threading.Event()
    spins = [0]

    def spin():
        while not stop.is_set():
            spins[0] += sum(range(64)) > 0

    spinner = threading.Thread(target=spin)
    spinner.start()
    raised, after = [], []
    for _ in range(CALLS):
        # A device and an image of their own: the fake counts calls from
        # GLCUDA_FAKE_CUDA_FAIL's change (made here), the image's first
        # export allocates its memory, and a lost device stays lost.
        dev = glcuda.Headless()
        img = dev.image(8, 4, 2)
        os.environ["GLCUDA_FAKE_CUDA_FAIL"] = fail
        try:
            export(img, kwargs)
            raised.append(None)
        except glcuda.Error as e:
            raised.append([type(e).__name__, e.message])
        os.environ["GLCUDA_FAKE_CUDA_FAIL"] = ""
        # The device's lock was released: the next call on it runs.
        try:
            export(img, {})
            after.append("exported")
        except glcuda.Error as e:
            after.append(type(e).__name__)
        img.close()
        dev.close()
    # Python on a thread started after the failures.
    later = []
    thread = threading.Thread(target=lambda: later.append(sum(range(10))))
    thread.start()
    thread.join()
    stop.set()
    spinner.join()
    print(json.dumps({"raised": raised, "after": after,
                      "spun": spins[0] > 0, "later": later}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
