"""User story: a table of pip dice (Qwinto, Knister, twenty one) is taught; its taught reader keeps
the shipped reader's sure values (`vision.dice_set.DiceSetReader.pip_reader`), so teaching does
not read the dice worse. Special dice (a cow, colours on the faces) are read by the taught set
alone: the pip reader does not know their faces."""
import pytest

from companion import teaching as T

pytest.importorskip("onnxruntime")


@pytest.fixture(scope="module")
def examples():
    """One photo of each face: pips 1-6 (a The Choice design with pips) and a Kuh Vadis cow."""
    import numpy as np

    from vision.training.special_dice import SEEN_DESIGNS, render_special_scene
    pips = next(d for d in SEEN_DESIGNS if d.game == "the_choice" and d.symbols == "pips")
    cows = next(d for d in SEEN_DESIGNS if d.game == "kuh_vadis")
    out = []
    for k, (design, face) in enumerate([(pips, v) for v in range(1, 7)] + [(cows, "cow")]):
        scene = render_special_scene(np.random.default_rng(k), design, n_dice=1, size=(240, 320),
                                     side_range=(40, 70), values=[face])
        out.append((scene.image, scene.dice[0].box, face, None))
    return out


@pytest.fixture(scope="module")
def session():
    from vision.read import load_session
    try:
        return load_session(threads=1)
    except (FileNotFoundError, OSError) as exc:
        pytest.skip(f"no face-reader model: {exc}")


def test_pip_dice_keep_the_shipped_readers_sure_values(examples, session):
    pips = [e for e in examples if e[2] != "cow"]
    reader, _ = T.build_reader(pips, T.TeachLabels((1, 2, 3, 4, 5, 6), None), None, session)
    assert reader.pip_reader is not None


@pytest.mark.parametrize("labels", [T.TeachLabels((1, 2, 3, 4, 5, "cow"), None),
                                    T.TeachLabels((1, 2, 3, 4, 5, 6), ("blue", "red"))])
def test_special_dice_are_read_by_the_taught_set_alone(examples, session, labels):
    faces = set(labels.faces)
    chosen = [e for e in examples if e[2] in faces]
    if labels.colours:
        chosen = [(img, box, face, ("blue", "red")[k % 2])
                  for k, (img, box, face, _) in enumerate(chosen)]
    reader, _ = T.build_reader(chosen, labels, None, session)
    assert reader.pip_reader is None


def test_without_the_shipped_model_the_taught_set_reads_alone(examples):
    pips = [e for e in examples if e[2] != "cow"]
    reader, _ = T.build_reader(pips, T.TeachLabels((1, 2, 3, 4, 5, 6), None), None)
    assert reader.pip_reader is None


@pytest.mark.parametrize("game,sixth", [("kuh_vadis", "cow"), ("knister", 6), ("qwinto", 6),
                                        ("the_choice", None)])
def test_the_shipped_reader_names_the_faces_of_pip_and_cow_dice_only(game, sixth):
    """What the shipped reader's values stand for when teaching is checked against it
    (`teaching.shipped_check`): Kuh Vadis' cow is its sixth face; The Choice's colours on the
    faces it cannot name."""
    from companion import games as G
    spec = G.dice_spec(game)
    names = T.shipped_names(spec, T.labels_for(spec))
    if sixth is None:
        assert names is None
    else:
        assert names == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: sixth}
