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
    through ctypes) reaches logging at ERROR, even when the next call
    raises: only the exception's own message goes to DEBUG."""
    caplog.set_level(logging.DEBUG, logger="glcuda")
    lib = ctypes.CDLL("libglcuda.so.4")
    img = dev.image(4, 4)
    capfd.readouterr()
    assert lib.glcuda_image_get_cuda_plane(None, 0, None) < 0
    raised = refused_export(img)
    assert glcuda_records(caplog) == [
        (logging.ERROR, "EINVAL: glcuda_image_get_cuda_plane: img is NULL"),
        (logging.DEBUG, raised)]
    assert "glcuda error:" not in capfd.readouterr().err
    img.close()


def test_threads_hand_over_their_own(dev, caplog):
    """A thread hands its own messages to logging, not another Python
    thread's: that one may be about to raise the exception that reports
    its message."""
    caplog.set_level(logging.DEBUG, logger="glcuda")
    lib = ctypes.CDLL("libglcuda.so.4")
    img = dev.image(2, 2)
    logged, go = threading.Event(), threading.Event()
    raised = []

    def other():
        try:
            lib.glcuda_image_get_cuda_plane(None, 1, None)
        finally:
            logged.set()
        go.wait(300)  # a guard against a hang, not a timing
        try:
            img.framebuffer(9)  # raises: hands this thread's log over
        except glcuda.InvalidArgumentError as e:
            raised.append(str(e))

    thread = threading.Thread(target=other)
    thread.start()
    assert logged.wait(300)
    dev.image(2, 2).close()  # hands this thread's log over
    assert glcuda_records(caplog) == []
    go.set()
    thread.join()
    assert raised and glcuda_records(caplog) == [
        (logging.ERROR, "EINVAL: glcuda_image_get_cuda_plane: img is NULL")]
    img.close()


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
