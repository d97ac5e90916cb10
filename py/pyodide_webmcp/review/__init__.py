"""Review threads: the stored format, anchors, and the operations the tools and the Comments tab share.
"""
