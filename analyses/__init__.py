"""adspec.analyses"""
