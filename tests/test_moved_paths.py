"""The old module paths' shim (gridghost._moved): what reading a name through one warns."""

from __future__ import annotations

import importlib
import warnings

import pytest

import gridghost  # noqa: F401  (installs the shim)


@pytest.mark.parametrize("name", ["TeamObservations", "team_grid_channels"])
def test_a_deprecated_name_read_through_an_old_path_warns_once_for_the_name_and_once_for_the_path(name: str) -> None:
    old = importlib.import_module("gridghost.sensing.team_encoders")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(old, name)
    messages = [str(warning.message) for warning in caught]
    assert sum(f"observations.{name} is deprecated" in message for message in messages) == 1, messages
    assert sum("gridghost.sensing.team_encoders moved to" in message for message in messages) == 1, messages
    assert len(messages) == 2


def test_a_name_no_new_home_holds_is_an_attribute_error_naming_the_old_path() -> None:
    old = importlib.import_module("gridghost.solve")
    with pytest.raises(AttributeError, match=r"module 'gridghost.solve' \(now gridghost.planning\) has no attribute"):
        old.no_such_name  # noqa: B018
