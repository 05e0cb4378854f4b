"""Test-suite configuration.

Hypothesis runs derandomized by default, so that CI is deterministic: a property either holds on
the fixed example sequence or fails every time. Set ``HYPOTHESIS_PROFILE=explore`` to search with
fresh random examples (and more of them) when working on a property.
"""

import os

from hypothesis import settings

settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
