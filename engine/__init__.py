"""adspec.engine"""
