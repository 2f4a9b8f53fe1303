"""Simplified Chinese: 2026年11月23日 14:05; Arabic digits grouped by three, as figures are read in mainland software."""

DATE_FORMAT = "Y年n月j日"  # 2026年11月23日
DATETIME_FORMAT = "Y年n月j日 H:i"  # 2026年11月23日 14:05
SHORT_DATE_FORMAT = "Y年n月j日"  # 2026年11月23日
SHORT_DATETIME_FORMAT = "n月j日 H:i"  # 11月23日 14:05
TIME_FORMAT = "H:i:s"  # 14:05:09
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
