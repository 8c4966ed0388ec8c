"""Profile estimators: power law, any scikit-learn regressor, map/reduce phases."""

from __future__ import annotations

from models.profiles.base import (
    ProfileKind,
    profile_from_dict,
    profile_kinds,
    profile_to_dict,
    register_profile_kind,
    require_fitted,
)
from models.profiles.derived import DerivedProfileWarning, with_wave_profiles
from models.profiles.phase import PhaseProfile, wave_power_law, wave_runtime
from models.profiles.power_law import PowerLawProfile
from models.profiles.regression import RegressionProfile, default_regressor

register_profile_kind(ProfileKind("power_law", PowerLawProfile, PowerLawProfile.from_dict))
register_profile_kind(ProfileKind("regression", RegressionProfile))
register_profile_kind(ProfileKind("phase", PhaseProfile))

__all__ = [
    "DerivedProfileWarning",
    "PhaseProfile",
    "PowerLawProfile",
    "ProfileKind",
    "RegressionProfile",
    "default_regressor",
    "profile_from_dict",
    "profile_kinds",
    "profile_to_dict",
    "register_profile_kind",
    "require_fitted",
    "wave_power_law",
    "wave_runtime",
    "with_wave_profiles",
]
