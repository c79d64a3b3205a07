"""Authentication and authorization of API calls: users (bearer tokens) and projects."""
