"""One module per game, all speaking the protocol of `engine.game.Game`."""
