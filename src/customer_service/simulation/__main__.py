"""`python -m customer_service.simulation`: the offline replay of `scenarios.yaml`."""

import sys

from customer_service.simulation.replay import main

sys.exit(main())
