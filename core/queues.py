"""Task-queue names shared by the API (which starts workflows) and worker.py (which polls)."""

MAIN_TASK_QUEUE = "mccgw-main"
