"""What turns started before a patch read from code, kept so their histories replay.

Delete an entry with the patch that made it legacy (docs/architecture.md: retiring
workflow versions).
"""

from domain.companies import Company

_YEARS = (2023, 2024, 2025)

COVERAGE_BEFORE_REGISTRY: tuple[Company, ...] = (
    Company(
        "BHP", "BHP Group", ("bhp", "bhp group", "bhp billiton", "bhp group limited", "必和必拓"),
        "06-30", "US$", _YEARS, ("iron ore", "copper", "coal", "nickel"),
    ),
    Company(
        "RIO", "Rio Tinto",
        ("rio", "rio tinto", "rio tinto group", "rio tinto limited", "rio tinto plc", "力拓"),
        "12-31", "US$", _YEARS, ("iron ore", "copper", "aluminium"),
    ),
    Company(
        "FMG", "Fortescue",
        ("fmg", "fortescue", "fortescue metals", "fortescue metals group", "fortescue ltd",
         "福蒂斯丘", "福特斯克"),
        "06-30", "US$", _YEARS, ("iron ore",),
    ),
    Company(
        "S32", "South32", ("s32", "south32", "south 32", "south32 limited", "南32", "南三十二"),
        "06-30", "US$", _YEARS, ("coal", "aluminium", "manganese"),
    ),
    Company(
        "NST", "Northern Star",
        ("nst", "northern star", "northern star resources", "northern star resources ltd",
         "北方之星"),
        "06-30", "A$", _YEARS, ("gold",),
    ),
)  # fmt: skip
"""The five sample companies and years the code listed before the coverage came from the
company registry (patch `coverage-from-registry-v1`): a turn started before it replays
with these."""
