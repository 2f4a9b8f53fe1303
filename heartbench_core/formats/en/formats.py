"""English: ISO-like dates, unambiguous wherever the reader lives (the platform's look before formats were named)."""

DATE_FORMAT = "Y-m-d"  # 2026-11-23
DATETIME_FORMAT = "Y-m-d H:i"  # 2026-11-23 14:05
SHORT_DATE_FORMAT = "Y-m-d"  # 2026-11-23
SHORT_DATETIME_FORMAT = "m-d H:i"  # 11-23 14:05 (tables where the year is the current one)
TIME_FORMAT = "H:i:s"  # 14:05:09 (the judging page's "saved at")
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
