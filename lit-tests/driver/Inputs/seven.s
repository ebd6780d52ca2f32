# Returns 7 (x86-64).
	.text
	.globl seven
	.type seven, @function
seven:
	movl $7, %eax
	ret
	.section .note.GNU-stack,"",@progbits
