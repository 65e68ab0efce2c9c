from pathlib import Path

import pytest

from vision.training.data import load_folder
from vision.training.metrics import greedy_match, match_score


def _write(folder: Path, labels: str, images: str | None = None):
    (folder / "images").mkdir(parents=True)
    (folder / "labels.csv").write_text(labels)
    if images is not None:
        (folder / "images.csv").write_text(images)


def test_load_folder_groups_rows_per_photo(tmp_path):
    _write(tmp_path / "myset",
           "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split\n"
           "a.jpg,640,480,0,3,10,10,50,50,train\n"
           "a.jpg,640,480,1,6,100,100,140,140,train\n"
           "b.jpg,640,480,0,1,0,0,640,480,val\n")
    images = load_folder(tmp_path / "myset")
    assert [im.path.name for im in images] == ["a.jpg", "b.jpg"]
    a, b = images
    assert [d.value for d in a.dice] == [3, 6] and a.dice[0].box_kind == "die"
    assert not a.is_crop and b.is_crop
    assert b.validation  # the author's val split is kept


def test_a_rendered_cow_is_the_readers_sixth_face(tmp_path):
    # renders of Kuh Vadis dice name the cow; the face reader's class 6 is a die's sixth face
    _write(tmp_path / "kv",
           "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split\n"
           "a.jpg,480,360,0,cow,10,10,50,50,render\n"
           "a.jpg,480,360,1,5,100,100,140,140,render\n")
    (im,) = load_folder(tmp_path / "kv")
    assert [d.value for d in im.dice] == [6, 5]


def test_an_unknown_face_name_is_an_error(tmp_path):
    _write(tmp_path / "x",
           "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split\n"
           "a.jpg,480,360,0,goat,10,10,50,50,render\n")
    with pytest.raises(ValueError):
        load_folder(tmp_path / "x")


def test_photos_without_dice_come_from_images_csv(tmp_path):
    _write(tmp_path / "s",
           "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split\n",
           "filename,image_w,image_h,n_dice,values,sum,orig_split\nempty.jpg,320,240,0,,0,val\n")
    (im,) = load_folder(tmp_path / "s")
    assert im.dice == () and im.width == 320


def test_a_renders_colour_and_hidden_share_are_read_and_a_photo_has_none(tmp_path):
    _write(tmp_path / "r",
           "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split,box_kind,"
           "colour,top_hidden\n"
           "r1.jpg,640,480,0,3,10,10,50,50,render,die,orange,0.0\n"
           "r1.jpg,640,480,1,2,60,10,99,50,render,die,purple,0.8\n")
    (im,) = load_folder(tmp_path / "r")
    assert [(d.colour, d.readable) for d in im.dice] == [("orange", True), ("purple", False)]
    _write(tmp_path / "p",
           "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split\n"
           "a.jpg,640,480,0,3,10,10,50,50,train\n")
    assert load_folder(tmp_path / "p")[0].dice[0].colour == ""


def test_missing_labels(tmp_path):
    with pytest.raises(FileNotFoundError, match="labels.csv"):
        load_folder(tmp_path)


class TestMatching:
    def test_whole_die_boxes_use_iou(self):
        assert match_score((0, 0, 10, 10), "die", (2, 2, 12, 12)) > 0
        assert match_score((0, 0, 10, 10), "die", (6, 6, 16, 16)) == 0

    def test_pip_boxes_match_a_die_box_around_them(self):
        pip_box = (45, 45, 55, 55)  # a single pip in the middle of a 60 px die
        assert match_score(pip_box, "pips", (20, 20, 80, 80)) > 0
        # pip in the corner: another box
        assert match_score(pip_box, "pips", (50, 50, 110, 110)) == 0
        assert match_score(pip_box, "pips", (48, 48, 52, 52)) == 0  # box smaller than the pips

    def test_box_around_two_dice_matches_neither(self):
        labels = [((20, 20, 40, 40), "pips"), ((80, 20, 100, 40), "pips")]
        assert greedy_match(labels, [(0, 0, 120, 60)]) == []
        assert sorted(greedy_match(labels, [(0, 0, 60, 60), (60, 0, 120, 60)])) == [(0, 0), (1, 1)]

    def test_one_to_one(self):
        labels = [((0, 0, 10, 10), "die")]
        assert len(greedy_match(labels, [(0, 0, 10, 10), (1, 1, 11, 11)])) == 1


class TestAsTaken:
    """A set whose export stretched its photos is read back at the shape its camera took."""

    def _image(self, tmp_path, set_name):
        _write(tmp_path / set_name,
               "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split\n"
               "a.jpg,640,640,0,3,100,200,140,260,test\n")
        return load_folder(tmp_path / set_name)[0]

    def test_a_stretched_set_gets_its_shape_and_its_labels_back(self, tmp_path):
        import numpy as np

        from vision.training.data import STRETCHED, as_taken
        im = self._image(tmp_path, "epanemu_own")
        sx, sy = STRETCHED["epanemu_own"]
        bgr = np.zeros((640, 640, 3), np.uint8)
        bgr[200:260, 100:140] = 255  # the die, as the export stored it
        im2, bgr2 = as_taken(im, bgr)
        assert bgr2.shape == (round(640 * sy), round(640 * sx), 3) == (480, 640, 3)
        assert (im2.width, im2.height) == (640, 480)
        x0, y0, x1, y1 = im2.dice[0].box
        assert (x0, y0, x1, y1) == (100, 150, 140, 195)
        assert bgr2[int(y0) + 2:int(y1) - 2, int(x0) + 2:int(x1) - 2].min() == 255  # still on it
        assert im2.dice[0].value == 3 and im.dice[0].box == (100, 200, 140, 260)  # a copy

    def test_other_sets_are_read_as_stored(self, tmp_path):
        import numpy as np

        from vision.training.data import as_taken
        im = self._image(tmp_path, "byler_d6_train")
        bgr = np.zeros((640, 640, 3), np.uint8)
        im2, bgr2 = as_taken(im, bgr)
        assert im2 is im and bgr2 is bgr

    def test_a_photo_taken_upright_is_narrowed_not_flattened(self, tmp_path):
        # its die is wider than tall as stored: the export stretched it across
        import numpy as np

        from vision.training.data import STRETCHED, as_taken
        _write(tmp_path / "epanemu_own",
               "filename,image_w,image_h,die,value,x_min,y_min,x_max,y_max,orig_split\n"
               "a.jpg,640,640,0,3,100,200,160,240,test\n")
        im = load_folder(tmp_path / "epanemu_own")[0]
        sx, sy = STRETCHED["epanemu_own"]
        im2, bgr2 = as_taken(im, np.zeros((640, 640, 3), np.uint8))
        assert bgr2.shape == (round(640 * sx), round(640 * sy), 3) == (640, 480, 3)
        assert (im2.width, im2.height) == (480, 640)
        assert im2.dice[0].box == (75, 200, 120, 240)

    def test_six_of_epanemus_photos_were_taken_upright(self, data_root):
        from vision.training.data import taken_upright
        folder = data_root / "epanemu_own"
        if not folder.is_dir():
            pytest.skip(f"{folder} is absent")
        assert {im.path.name for im in load_folder(folder) if taken_upright(im)} == {
            "dice_379.jpg", "dice_399.jpg", "dice_400.jpg", "dice_401.jpg", "dice_419.jpg",
            "dice_424.jpg"}
