"""What makes the shipped models: renderers (synthetic, special-dice and photoreal scenes),
labelled-photo loading, match metrics, the trainers and their ONNX exporters.

The shipped reader (the rest of ``vision/``) never imports this package. The trainers need the
``train`` extra (``pip install -e '.[train]'``: torch, onnx, tqdm); the renderers and loaders need
only the runtime's numpy and OpenCV (``vision.training.render3d`` builds scenes in Blender with
the ``render`` extra, docs/render3d.md).
"""
