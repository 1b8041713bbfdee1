"""adspec.rules"""
