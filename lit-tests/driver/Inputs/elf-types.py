# Prints the ELF type of every ELF file embedded in an object (the image's cubins):
# 1 = relocatable (ptxas -c, linked at load time), 2 = executable.
import sys
b=open(sys.argv[1],'rb').read()
i=b.find(b'\x7fELF',1)
out=[]
while i!=-1:
    out.append(int.from_bytes(b[i+16:i+18],'little'))
    i=b.find(b'\x7fELF',i+1)
print(sys.argv[1], "embedded ELF e_types:", out, "(1=REL 2=EXEC)")
