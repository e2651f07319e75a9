"""Call reports: one JSON file per call (collect), metrics logged as they arrive (live),
and a folder of reports summarised as a table or an HTML page (summary, html)."""
