"""The embedding's training data: designs, labels, held-out symbols (pure: no torch is imported)."""
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.training.embed import crops as embed_crops, dataset, designs, fit, net as embed_net
from vision.training.embed.designs import FACE
from vision.training.embed.net import SIZE

ROOT = Path(__file__).resolve().parents[2]


def test_importing_it_needs_no_torch():
    code = ("import sys, vision.training.train_embed, vision.teach, vision.embedding, "
            "vision.dice_set; "
            "print('torch' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr


class TestDesigns:
    def test_a_design_is_data_and_depends_on_its_seed_only(self):
        a, b = designs.random_design(12), designs.random_design(12)
        assert a == b and json.loads(json.dumps(a)) == a
        assert len({json.dumps(designs.random_design(s), sort_keys=True) for s in range(50)}) == 50

    def test_every_kind_is_generated_with_six_distinct_faces(self):
        kinds = set()
        for seed in range(120):
            d = designs.random_design(seed)
            kinds.add(d["kind"])
            masks = [designs.face_mask(d, f) for f in range(6)]
            assert all(m.shape == (FACE, FACE) and (m > 127).sum() > 10 for m in masks)
            assert len({m.tobytes() for m in masks}) == 6
        assert kinds == set(designs.KINDS)

    def test_the_held_out_designs_cannot_be_produced(self):
        assert cv2.FONT_HERSHEY_TRIPLEX not in designs.FONTS
        assert "stone" not in designs.BODIES and "roman" not in designs.KINDS
        fonts, bodies = set(), set()
        for seed in range(400):
            d = designs.random_design(seed)
            bodies.add(d["body"])
            if "font" in d:
                fonts.add(d["font"])
            if d["kind"] == "seen":
                from vision.training.special_dice import HELD_OUT_DESIGNS, SEEN_DESIGNS
                assert designs._seen(d) in SEEN_DESIGNS and designs._seen(d) not in HELD_OUT_DESIGNS
        assert cv2.FONT_HERSHEY_TRIPLEX not in fonts and "stone" not in bodies


class TestRenders:
    def test_a_crop_is_the_readers_input_and_repeatable(self):
        d = designs.random_design(3)
        a = embed_crops.render_crop(np.random.default_rng([0, 3, 2]), d, 2)
        b = embed_crops.render_crop(np.random.default_rng([0, 3, 2]), d, 2)
        assert a.shape == (SIZE, SIZE, 3) and a.dtype == np.uint8 and np.array_equal(a, b)
        assert a.std() > 5

    def test_design_crops_label_each_face_of_each_design(self):
        X, Y = dataset.design_crops((4, 2, 2, 0))  # designs 4 and 5, 2 renders per face
        assert X.shape == (24, SIZE, SIZE, 3)
        assert Y.tolist() == [dataset.class_of(designs.random_design(i), i, f) for i in (4, 5)
                              for f in range(6) for _ in range(2)]
        assert (dataset.class_of(designs.random_design(4), 4, 3)
                == dataset.FIRST_DESIGN_CLASS + 4 * 6 + 3)

    def test_a_seen_design_is_one_class_per_face_whatever_draws_it(self):
        seen = [i for i in range(300) if designs.random_design(i)["kind"] == "seen"]
        by_design = {}
        for i in seen:
            d = designs.random_design(i)
            by_design.setdefault(d["seen"], set()).add(dataset.class_of(d, i, 2))
        assert all(len(c) == 1 for c in by_design.values()) and len(by_design) >= 3
        assert all(1 + dataset.N_REAL <= c < dataset.FIRST_DESIGN_CLASS for cs in by_design.values()
                   for c in cs)

    def test_extra_seen_crops_are_the_seen_designs_classes(self):
        """``--seen-per-face``: more renders of one seen design, each face the class that the
        design's renders among the random designs have."""
        from vision.training.special_dice import SEEN_DESIGNS
        which = len(SEEN_DESIGNS) - 1
        X, Y = dataset.seen_crops((which, 0, 2, 0))
        assert X.shape == (12, SIZE, SIZE, 3)
        drawn = next(i for i in range(2000) if designs.random_design(i)["kind"] == "seen"
                     and designs.random_design(i)["seen"] % dataset.N_SEEN == which)
        assert Y.tolist() == [dataset.class_of(designs.random_design(drawn), drawn, f)
                              for f in range(6) for _ in range(2)]
        again, _ = dataset.seen_crops((which, 0, 2, 0))
        other, _ = dataset.seen_crops((which, 100, 2, 0))
        assert np.array_equal(X, again) and not np.array_equal(X, other)

    def test_not_a_die_crops(self):
        X, Y = dataset.not_die_crops((0, 5, 0))
        assert X.shape == (5, SIZE, SIZE, 3) and set(Y.tolist()) == {dataset.NOT_DIE}


HEAD = ("filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split,box_kind,colour,"
        "top_hidden,dice_kind,design\n")


class TestPhotorealRenders:
    """``--renders``: the dice of photoreal special-dice renders join the classes of their seen
    design's faces, as its 2-D renders are labelled."""

    def folder(self, tmp_path, rows):
        (tmp_path / "images").mkdir()
        cv2.imwrite(str(tmp_path / "images" / "r.jpg"), np.full((120, 160, 3), 90, np.uint8))
        (tmp_path / "labels.csv").write_text(HEAD + "".join(
            f"r.jpg,160,120,{k},{v},10,10,60,60,render,die,red,{hidden},{kind},{design}\n"
            for k, (v, hidden, kind, design) in enumerate(rows)))
        return tmp_path

    def test_a_rendered_face_is_its_seen_designs_class(self, tmp_path):
        from vision.training.special_dice import SEEN_DESIGNS
        kv = SEEN_DESIGNS[0]
        tc = next(d for d in SEEN_DESIGNS if d.game == "the_choice")
        folder = self.folder(tmp_path, [("cow", 0.0, "kuh_vadis", kv.name),
                                        (2, 0.05, "kuh_vadis", kv.name),
                                        (4, 0.6, "kuh_vadis", kv.name),      # top face hidden
                                        (6, 0.0, "the_choice", tc.name),
                                        (3, 0.0, "pips", "")])                # a pip die
        items = dataset.render_die_boxes([folder])
        seen = {d.name: i for i, d in enumerate(SEEN_DESIGNS)}
        cls = lambda design, face: dataset.class_of({"kind": "seen", "seen": seen[design]},  # noqa: E731
                                                    -1, face)
        assert [c for _, _, c in items] == [cls(kv.name, 5), cls(kv.name, 1), cls(tc.name, 5)]
        assert items[0][1] == (10.0, 10.0, 60.0, 60.0)
        X, Y, info = dataset.render_dataset([folder], 3, 0)
        assert X.shape == (9, SIZE, SIZE, 3) and X.dtype == np.uint8
        assert Y.tolist() == [c for _, _, c in items for _ in range(3)]
        assert (info["render_dice"], info["render_crops"]) == (3, 9)

    def test_a_held_out_design_is_never_trained_on(self, tmp_path):
        from vision.training.special_dice import HELD_OUT_DESIGNS
        folder = self.folder(tmp_path, [(3, 0.0, "kuh_vadis", HELD_OUT_DESIGNS[0].name)])
        with pytest.raises(ValueError, match="not a seen design"):
            dataset.render_die_boxes([folder])


def test_real_crops_come_from_the_training_split_only(real_dice_root):
    from vision.training.data import load_folder
    items = dataset.real_die_boxes(real_dice_root)
    assert len(items) > 1000
    validation = {str(im.path) for f in real_dice_root.iterdir() if (f / "labels.csv").is_file()
                  for im in load_folder(f) if im.validation}
    assert validation and not validation & {p for p, _, _ in items}
    assert {v for _, _, v in items} == set(range(1, 7))
    path, box, value = items[0]
    X, Y = dataset.real_crops((path, [(box, value)], 3, 0, 0))
    assert X.shape == (3, SIZE, SIZE, 3) and Y.tolist() == [value] * 3


def test_fine_tuning_starts_from_the_exported_weights(tmp_path):
    """``--init``: the net loaded from an exported model computes what the file computes (its
    folded batch norms become biases), so a fine-tune starts where the shipped model is."""
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    from vision.embedding import EMBED_MODEL, FaceEmbedder
    net = embed_net.make_net(width=embed_net.exported_width(EMBED_MODEL))
    assert embed_net.load_exported(net, EMBED_MODEL) == FaceEmbedder(EMBED_MODEL).model_id
    net.eval()
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 256, (6, SIZE, SIZE, 3), dtype=np.uint8)
    crops[:, 12:36, 12:36] = 240
    with torch.no_grad():
        mine = net(fit._standardise(torch,
                                   torch.from_numpy(crops).permute(0, 3, 1, 2).float())).numpy()
    assert np.abs(mine - FaceEmbedder(EMBED_MODEL)(crops)).max() < 1e-4
    wrong = embed_net.make_net(width=embed_net.exported_width(EMBED_MODEL))
    wrong.trunk = wrong.trunk[:3]
    with pytest.raises(ValueError, match="not this architecture"):
        embed_net.load_exported(wrong, EMBED_MODEL)
    with pytest.raises(ValueError, match="does not fit"):
        embed_net.load_exported(embed_net.make_net(width=1.0), EMBED_MODEL)


def test_halved_weights_compute_what_the_full_file_computes(tmp_path):
    """``halve_weights`` (the shipped file's float16 storage) keeps the metadata and the
    embeddings."""
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    from vision.embedding import EMBED_MODEL, FaceEmbedder
    half = tmp_path / "half.onnx"
    twice = tmp_path / "twice.onnx"
    embed_net.halve_weights(EMBED_MODEL, half)
    embed_net.halve_weights(half, twice)  # the shipped file is already halved: nothing to halve
    assert twice.stat().st_size == half.stat().st_size <= EMBED_MODEL.stat().st_size
    crops = np.random.default_rng(1).integers(0, 256, (4, SIZE, SIZE, 3), dtype=np.uint8)
    a, b = FaceEmbedder(EMBED_MODEL), FaceEmbedder(twice)
    assert a.model_id == b.model_id and np.abs(a(crops) - b(crops)).max() < 1e-3
