"""The site owner's configuration: the settings, and the site's own tools.
"""
