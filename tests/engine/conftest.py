import sys
from pathlib import Path

# lets the tests import `rule_oracle` and `fixtures.make_perft` beside them
sys.path.insert(0, str(Path(__file__).parent))
