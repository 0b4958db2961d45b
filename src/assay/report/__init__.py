"""Reporters: one module per format. A reporter formats a finished result; it never computes one."""
