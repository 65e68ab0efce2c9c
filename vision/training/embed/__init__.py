"""The face embedding's training, one job a module: ``designs`` (random designs as data, their
symbols), ``faces`` (a face drawn in colour), ``crops`` (a face as the camera crops it),
``dataset`` (classes and the rendered set), ``net`` (the net, export, loading), ``fit`` (the
training loop). ``vision.training.train_embed`` is the command that runs them."""
