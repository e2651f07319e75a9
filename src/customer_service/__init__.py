"""A customer-service voice agent on LiveKit Agents: a supervisor with typed specialists."""
