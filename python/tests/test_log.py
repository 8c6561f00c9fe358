"""glcuda's log goes to Python's logging, on the logger "glcuda", at the
level of its priority, and not to stderr; a failure that becomes an
exception is logged at DEBUG only, so that it is reported once."""
import ctypes
import logging
import threading

import pytest

import glcuda


def glcuda_records(caplog):
    return [(r.levelno, r.getMessage()) for r in caplog.records
            if r.name == "glcuda"]


def refused_export(img):
    """A failure glcuda logs (at error priority) and returns."""
    with pytest.raises(glcuda.InvalidArgumentError) as info:
        img.__dlpack__(plane=5)
    assert "plane 5 of an image with 1 plane" in str(info.value)
    return str(info.value)


def test_error_logged_once(dev, caplog, capfd):
    caplog.set_level(logging.DEBUG, logger="glcuda")
    img = dev.image(4, 4)
    capfd.readouterr()
    raised = refused_export(img)
    assert glcuda_records(caplog) == [(logging.DEBUG, raised)]
    assert "glcuda error:" not in capfd.readouterr().err
    img.close()


def test_error_logged_once_on_a_thread(dev, caplog, capfd):
    """A failure on another thread: the handler, called there without the
    GIL, queues the message; the thread logs it once it has the GIL."""
    caplog.set_level(logging.DEBUG, logger="glcuda")
    img = dev.image(4, 4)
    capfd.readouterr()
    raised = []
    thread = threading.Thread(target=lambda: raised.append(
        refused_export(img)))
    thread.start()
    thread.join()
    assert len(raised) == 1
    assert glcuda_records(caplog) == [(logging.DEBUG, raised[0])]
    assert "glcuda error:" not in capfd.readouterr().err
    img.close()


def test_error_not_raised_stays_an_error(dev, caplog, capfd):
    """An error glcuda logs that no exception reports (a C caller's, here
    through ctypes) reaches logging at ERROR."""
    caplog.set_level(logging.DEBUG, logger="glcuda")
    lib = ctypes.CDLL("libglcuda.so.4")
    capfd.readouterr()
    assert lib.glcuda_image_get_cuda_plane(None, 0, None) < 0
    dev.image(4, 4).close()  # a call from Python hands the log over
    assert (logging.ERROR,
            "EINVAL: glcuda_image_get_cuda_plane: img is NULL") in \
        glcuda_records(caplog)
    assert "glcuda error:" not in capfd.readouterr().err


def test_info_logged(monkeypatch, caplog, capfd):
    """GLCUDA_LOG=info: the device's info messages, at INFO."""
    monkeypatch.setenv("GLCUDA_LOG", "info")
    caplog.set_level(logging.DEBUG, logger="glcuda")
    capfd.readouterr()
    with glcuda.Headless():
        pass
    infos = [m for level, m in glcuda_records(caplog)
             if level == logging.INFO]
    assert any(m.startswith("bound ") for m in infos), infos
    assert not any(m.endswith("\n") for m in infos)
    assert "glcuda info:" not in capfd.readouterr().err
