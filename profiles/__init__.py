"""User profiles on the shared user platform: avatar images and where they are stored."""
