"""One module per `dice-companion` subcommand; each exposes `register(subparsers)`."""
