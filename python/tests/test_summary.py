"""duet.summary from Python: event files TensorBoard's own reader reads back (a subprocess with
the tensorboard package), eagerly and from a traced function."""

import numpy as np
import pytest

import duet
from peers import require, run_python


def test_scalars_histograms_images_and_text_read_back_by_tensorboard(tmp_path):
    writer = duet.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        assert duet.summary.scalar("loss", 0.5)
        duet.summary.histogram("weights", np.linspace(-1, 1, 50))
        duet.summary.image("picture", np.zeros((2, 4, 4, 3), np.float32), max_outputs=1)
        duet.summary.text("notes", "lr 0.01")
    step = duet.function(lambda loss, i: writer.scalar("traced", loss, i))
    for i in range(2, 5):
        step(duet.constant(i / 10), duet.constant(i, dtype=duet.int64))
    writer.flush()
    with pytest.raises(RuntimeError, match="no default writer"):
        duet.summary.scalar("loss", 1.0, step=1)
    with writer.as_default():
        with pytest.raises(ValueError, match="no step"):
            duet.summary.scalar("loss", 1.0)
    require("tensorboard")
    out = run_python(f"""
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        acc = EventAccumulator({str(tmp_path)!r}, size_guidance={{"scalars": 0}})
        acc.Reload()
        tags = acc.Tags()
        print(sorted(tags["scalars"]), sorted(tags["histograms"]), sorted(tags["images"]))
        print([(e.step, round(e.value, 6)) for e in acc.Scalars("traced")])
        print(acc.Scalars("loss")[0].value, acc.Histograms("weights")[0].histogram_value.num)
    """)
    lines = out.strip().splitlines()
    assert lines[0] == "['loss', 'traced'] ['weights'] ['picture/image']"
    assert lines[1] == "[(2, 0.2), (3, 0.3), (4, 0.4)]"
    assert lines[2] == "0.5 50.0"


def test_record_if_and_every_n_steps(tmp_path):
    writer = duet.summary.create_file_writer(str(tmp_path))
    step = duet.Variable(0, dtype=duet.int64)
    written = []
    with writer.as_default(), duet.summary.record_if(lambda: int(step) % 3 == 0):
        for i in range(7):
            written.append(duet.summary.scalar("loss", i / 10, step=i))
            step.assign_add(1)
        with duet.summary.record_if(False):
            assert not duet.summary.scalar("loss", 1.0, step=99)
    assert written == [True, False, False, True, False, False, True]
    writer.flush()
    require("tensorboard")
    out = run_python(f"""
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        acc = EventAccumulator({str(tmp_path)!r}, size_guidance={{"scalars": 0}})
        acc.Reload()
        print([e.step for e in acc.Scalars("loss")])
    """)
    assert out.strip().splitlines()[-1] == "[0, 3, 6]"
