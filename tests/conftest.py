"""Test configuration: hypothesis profiles.

``ci`` (the default) has no deadline, because exact big-integer work varies in
time on a loaded two-core machine; ``thorough`` runs ten times more examples.
Choose with ``HYPOTHESIS_PROFILE=thorough``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", deadline=None, max_examples=1000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
